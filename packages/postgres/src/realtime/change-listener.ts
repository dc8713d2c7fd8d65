import pg from 'pg';
import type { ChangeChannel, ChangeNotice, ChangeSubscriber, ChangeSubscription } from '@inntak/access';

/**
 * The three notification channels of db/migrations/004.do.realtime.sql, the mixer's
 * (013.do.media.sql), and webhook secrets and token grace periods (034, 035: read by the intake's
 * webhook cache alone).
 */
export const CHANGE_CHANNELS: readonly ChangeChannel[] = ['inntak_nodes', 'inntak_edges', 'inntak_access', 'inntak_mixer', 'inntak_webhooks'];
export type { ChangeChannel, ChangeNotice };

export interface ChangeListenerOptions extends ChangeSubscriber {
  connectionString: string;
}

export const LISTENER_APPLICATION_NAME = 'inntak-realtime-listener';

/**
 * One dedicated LISTEN connection (its own pg.Client, never a pooled one: a pooled client would
 * be handed to other queries and lose its LISTEN). Notices are handed on in bursts so the reader
 * makes one query per burst, not one per row.
 *
 * A lost connection is remade by one retry loop: one attempt at a time, each after a growing,
 * jittered delay (full jitter up to min(max, min·2^n)), so many API instances do not reconnect
 * in step and a database coming back is not flooded. There is never more than one listener
 * connection, and the log has one line when the connection is lost and one when it is back, not
 * one per attempt.
 */
export class ChangeListener implements ChangeSubscription {
  private client: pg.Client | undefined;
  private queue: ChangeNotice[] = [];
  private draining = false;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | undefined;
  /** The reconnect loop, while one runs; at most one does. */
  private retrying: Promise<void> | undefined;
  private retryWake: (() => void) | undefined;
  /** Connection attempts of the current or last reconnect loop (tests, diagnostics). */
  reconnectAttempts = 0;
  private idle: Promise<void> = Promise.resolve();

  constructor(private readonly options: ChangeListenerOptions) {}

  /** Connects and listens; rejects when the first connection fails (start-up should say so). */
  async start(): Promise<void> {
    this.stopped = false;
    this.client = await this.connect();
    this.options.onLive?.(true);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.retryWake?.();
    const client = this.client;
    this.client = undefined;
    this.options.onLive?.(false);
    if (client) await client.end().catch(() => {});
    await this.retrying;
    await this.idle;
  }

  /** A listening client, or a rejection; a failed attempt leaves no connection behind. */
  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: this.options.connectionString, application_name: LISTENER_APPLICATION_NAME });
    // pg emits 'error' besides rejecting connect(); without a handler that would crash the process.
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query((this.options.channels ?? CHANGE_CHANNELS).map((c) => `listen ${c}`).join('; '));
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    client.on('notification', (message) => this.onNotification(message));
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      client.end().catch(() => {});
      if (this.client !== client) return;
      this.client = undefined;
      this.options.onLive?.(false);
      if (this.stopped) return;
      this.options.logger.warn('realtime listener lost its connection; reconnecting', { error: error?.message });
      this.retrying = this.reconnect();
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    return client;
  }

  private async reconnect(): Promise<void> {
    const min = this.options.minBackoffMs ?? 100;
    const max = this.options.maxBackoffMs ?? 5000;
    const since = Date.now();
    let lastError: string | undefined;
    for (let attempt = 1; !this.stopped; attempt++) {
      this.reconnectAttempts = attempt;
      const ceiling = Math.min(max, min * 2 ** (attempt - 1));
      await new Promise<void>((resolve) => {
        this.retryWake = resolve;
        this.retryTimer = setTimeout(resolve, Math.random() * ceiling);
      });
      if (this.stopped) return;
      try {
        const client = await this.connect();
        if (this.stopped) {
          await client.end().catch(() => {});
          return;
        }
        this.client = client;
        this.options.logger.info('realtime listener reconnected', { attempts: attempt, down_ms: Date.now() - since, last_error: lastError });
        this.options.onLive?.(true);
        this.options.onReconnect();
        return;
      } catch (error) {
        lastError = (error as Error).message;
      }
    }
  }

  private onNotification(message: pg.Notification): void {
    if (!message.payload) return;
    try {
      this.queue.push({ channel: message.channel as ChangeChannel, payload: JSON.parse(message.payload) as Record<string, unknown> });
    } catch {
      this.options.logger.warn('unparsable change notification', { channel: message.channel });
      return;
    }
    this.drain();
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = true;
    this.idle = (async () => {
      // Let the rest of a transaction's notifications (delivered together) join the burst.
      await new Promise((resolve) => setImmediate(resolve));
      while (this.queue.length > 0) {
        const burst = this.queue;
        this.queue = [];
        try {
          await this.options.onBurst(burst);
        } catch (error) {
          this.options.logger.error('realtime burst failed', { error: (error as Error).message, notices: burst.length });
        }
      }
      this.draining = false;
    })();
  }
}
