import type { NewEdge, NewNode } from '@inntak/graph';
import type { DeliveryLogEntry, FailedDelivery, IntakeStore, WebhookTarget, WriteOutcome } from './ports.js';

/** One intake write as writeContent takes it. */
export interface ContentWrite {
  node: NewNode;
  edge: NewEdge;
  log: DeliveryLogEntry;
}

/** A store that can also write several intakes in one transaction (one commit, one WAL flush). */
export interface BatchIntakeStore extends IntakeStore {
  /**
   * Writes every one, in order, in one transaction, answering each as writeContent would; when
   * any fails, nothing is kept and it throws (GroupCommit then writes them one by one).
   */
  writeContents(writes: readonly ContentWrite[]): Promise<WriteOutcome[]>;
}

export interface GroupCommitOptions {
  /** Writes in flight at once: one per database connection intake has (INTAKE_POOL_SIZE). */
  maxInFlight: number;
  /** Writes in one transaction at most. */
  maxBatch?: number;
}

interface Waiting {
  write: ContentWrite;
  resolve: (outcome: WriteOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for intake (issue 29). Each write goes to the database at once while a
 * connection is free, alone, exactly as before; the writes that arrive while every connection
 * is busy wait, and the next free connection writes all of them in one transaction. So one
 * sender sees no change, and under load the database makes one commit (one WAL flush, one round
 * trip) per batch instead of per request. Every caller is answered only after the transaction
 * holding its rows committed. If the batch fails — one delivery's node or edge insert, a
 * webhook deleted meanwhile — it is undone whole and its writes are made one by one, each in its
 * own transaction, so a bad delivery fails only itself with the error it would have had alone.
 */
export class GroupCommit implements IntakeStore {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;
  private readonly maxBatch: number;

  constructor(
    private readonly store: BatchIntakeStore,
    private readonly options: GroupCommitOptions,
  ) {
    this.maxBatch = options.maxBatch ?? 64;
  }

  findWebhookByToken(token: string): Promise<WebhookTarget | undefined> {
    return this.store.findWebhookByToken(token);
  }

  recordFailedDelivery(delivery: FailedDelivery): Promise<void> {
    return this.store.recordFailedDelivery(delivery);
  }

  writeContent(node: NewNode, edge: NewEdge, log: DeliveryLogEntry): Promise<WriteOutcome> {
    return new Promise<WriteOutcome>((resolve, reject) => {
      this.waiting.push({ write: { node, edge, log }, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.options.maxInFlight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.maxBatch);
      this.inFlight++;
      void this.write(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async write(batch: Waiting[]): Promise<void> {
    if (batch.length > 1) {
      try {
        const outcomes = await this.store.writeContents(batch.map((w) => w.write));
        batch.forEach((w, i) => w.resolve(outcomes[i]!));
        return;
      } catch {
        // Nothing of the batch was kept: each write now gets its own transaction and answer.
      }
    }
    for (const w of batch) {
      await this.store.writeContent(w.write.node, w.write.edge, w.write.log).then(w.resolve, w.reject);
    }
  }
}
