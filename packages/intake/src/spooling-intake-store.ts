import { AppError, uuidv7, type Logger } from '@inntak/core';
import type { NewEdge, NewNode } from '@inntak/graph';
import type { BatchIntakeStore } from './group-commit.js';
import { AlreadyWrittenError, type DeliveryLogEntry, type FailedDelivery, type IntakeStore, type WebhookTarget, type WriteOutcome } from './ports.js';
import { SpoolFullError, type Spool, type SpooledEntry } from './spool.js';
import type { WebhookTargetCache } from './webhook-target-cache.js';

export interface SpoolingIntakeOptions {
  /** The live path (GroupCommit over the database). */
  live: IntakeStore;
  /** The database's own store: replay writes a spooled run in one transaction at a time. */
  replay: BatchIntakeStore;
  spool: Spool;
  targets: WebhookTargetCache;
  /** The adapter's judgement that the database is away (connection refused or lost, shutdown, pool timeout). */
  isUnavailable(error: unknown): boolean;
  logger: Logger;
  /** A lookup or write not done within this is taken for an outage (default 2 s). */
  boundMs?: number;
  /** How often replay asks whether the database is back (default 1 s). */
  retryMs?: number;
  /** Entries written per replay transaction. */
  replayBatch?: number;
}

export interface SpoolSnapshot {
  entries: number;
  bytes: number;
  oldestAgeSeconds: number;
  replaysDone: number;
  /** Deliveries are going to the spool or waiting in it. */
  degraded: boolean;
}

class BoundExceeded extends Error {
  constructor(ms: number) {
    super(`the database did not answer within ${ms} ms`);
  }
}

/**
 * The intake store with the durable spool behind it (issue 37, docs/deliveries.md#outages). It
 * is the store the intake route already calls, so the route's checks (signature, size,
 * encoding, template) run as always; only where the database cannot be reached does a
 * rendered delivery go to the spool instead, and its 200 is sent once the spool has it on
 * disk. Replay writes the spool, oldest first, through the same write as a live intake; while
 * anything waits, new deliveries go behind it so each webhook's order holds.
 */
export class SpoolingIntakeStore implements IntakeStore {
  private outage = false;
  /** Entries this process knows to wait (appended here or found at start). */
  private waiting = 0;
  private draining: Promise<void> | undefined;
  private stopped = false;
  private wake: (() => void) | undefined;
  private spoolingSince = 0;
  replaysDone = 0;
  private readonly boundMs: number;

  constructor(private readonly options: SpoolingIntakeOptions) {
    this.boundMs = options.boundMs ?? 2000;
  }

  /** Loads the known webhooks and replays what a previous run (killed, say) left behind. */
  async start(): Promise<void> {
    await this.options.targets.load();
    const stats = await this.options.spool.stats();
    if (stats.entries > 0) {
      this.waiting = stats.entries;
      this.options.logger.warn('intake spool holds deliveries from before this start; replaying', { entries: stats.entries });
      this.kick();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.draining;
  }

  async findWebhookByToken(token: string): Promise<WebhookTarget | undefined> {
    const { targets } = this.options;
    if (this.outage) {
      const known = targets.known(token);
      if (known) return known;
    }
    try {
      // While the change stream keeps the copy current, a known token costs no round trip.
      return await targets.lookup(token, (t) => this.bounded(this.options.live.findWebhookByToken(t)));
    } catch (error) {
      if (!this.unavailable(error)) throw error;
      this.enterOutage(error);
      const known = targets.known(token);
      if (known) return known;
      throw error;
    }
  }

  async writeContent(node: NewNode, edge: NewEdge, log: DeliveryLogEntry): Promise<WriteOutcome> {
    if (this.outage || this.waiting > 0) return this.toSpool(node, edge, log);
    try {
      return await this.bounded(this.options.live.writeContent(node, edge, log));
    } catch (error) {
      // Only an outage spools: a failed insert or a deleted webhook answers as before.
      if (error instanceof AppError || !this.unavailable(error)) throw error;
      this.enterOutage(error);
      return this.toSpool(node, edge, log);
    }
  }

  recordFailedDelivery(delivery: FailedDelivery): Promise<void> {
    return this.options.live.recordFailedDelivery(delivery);
  }

  async snapshot(): Promise<SpoolSnapshot> {
    const stats = await this.options.spool.stats();
    const oldestAgeSeconds = stats.oldestAt ? Math.max(0, (Date.now() - stats.oldestAt.getTime()) / 1000) : 0;
    return { entries: stats.entries, bytes: stats.bytes, oldestAgeSeconds, replaysDone: this.replaysDone, degraded: this.outage || stats.entries > 0 };
  }

  private async toSpool(node: NewNode, edge: NewEdge, log: DeliveryLogEntry): Promise<WriteOutcome> {
    try {
      await this.options.spool.append({ node, edge, log });
    } catch (error) {
      // Past SPOOL_MAX_BYTES (or a broken spool) the spec's answer applies again.
      if (error instanceof SpoolFullError) this.options.logger.error('intake spool is full; refusing deliveries', { max_bytes: error.maxBytes });
      throw new AppError('node_insert_failed', { cause: error });
    }
    this.waiting++;
    this.kick();
    // The duplicate check runs at replay: a second copy then writes only its log row.
    return { propagationError: null, duplicateOf: null };
  }

  private enterOutage(error: unknown): void {
    if (this.outage) return;
    this.outage = true;
    this.spoolingSince = Date.now();
    this.options.logger.warn('intake database unreachable; spooling deliveries for known webhooks', { error: String(error), known_webhooks: this.options.targets.size });
    this.kick();
  }

  private kick(): void {
    if (this.draining || this.stopped) return;
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      // Something arrived after the last look: go again.
      if (!this.stopped && (this.waiting > 0 || this.outage)) this.kick();
    });
  }

  private async drain(): Promise<void> {
    const { spool, logger } = this.options;
    let replayed = 0;
    while (!this.stopped) {
      try {
        if (this.outage) await this.bounded(this.options.live.findWebhookByToken(uuidv7()));
        const batch = await spool.peek(this.options.replayBatch ?? 200);
        if (batch.length === 0) {
          this.waiting = 0;
          if (this.outage || replayed > 0) {
            logger.info('intake spool drained; writing deliveries directly again', { replayed, spooling_ms: this.spoolingSince ? Date.now() - this.spoolingSince : 0 });
          }
          this.outage = false;
          this.spoolingSince = 0;
          return;
        }
        replayed += await this.replay(batch);
      } catch (error) {
        if (!this.unavailable(error)) logger.error('intake spool replay failed; retrying', { error: String(error) });
        this.enterOutage(error);
        await this.pause(this.options.retryMs ?? 1000);
      }
    }
  }

  /** Writes a run of entries: in one transaction, or, when that fails, one by one. */
  private async replay(batch: SpooledEntry[]): Promise<number> {
    const { spool, replay, logger } = this.options;
    try {
      await replay.writeContents(batch);
    } catch (error) {
      if (this.unavailable(error)) throw error;
      for (const entry of batch) {
        try {
          await replay.writeContent(entry.node, entry.edge, entry.log);
        } catch (one) {
          if (this.unavailable(one)) throw one;
          // Written before (a commit whose answer was lost, another process's replay): the node id is the key.
          if (one instanceof AlreadyWrittenError) continue;
          // The webhook was deleted during the outage, or the write fails for good: kept in the log, not retried forever.
          logger.error('spooled delivery could not be written; dropped', { node_id: entry.node.id, webhook_id: entry.log.webhookId, error: String(one) });
        }
      }
    }
    await spool.remove(batch.map((e) => e.ref));
    this.waiting = Math.max(0, this.waiting - batch.length);
    this.replaysDone += batch.length;
    return batch.length;
  }

  private unavailable(error: unknown): boolean {
    return error instanceof BoundExceeded || this.options.isUnavailable(error);
  }

  private bounded<T>(work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new BoundExceeded(this.boundMs)), this.boundMs);
    });
    // The late answer of a write given up on is ignored: if it committed, replay finds the node.
    work.catch(() => {});
    return Promise.race([work, bound]).finally(() => clearTimeout(timer));
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
