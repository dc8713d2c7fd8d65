import type { NewEdge, NewNode } from '@inntak/graph';

/** What the token lookup yields: the webhook, its target collection and its template. */
export interface WebhookTarget {
  webhookId: string;
  collectionId: string;
  templateId: string | null;
}

/**
 * The intake's one boundary: the store. The Postgres adapter implements it; tests wrap it to
 * inject a failure at one step.
 */
export interface IntakeStore {
  findWebhookByToken(token: string): Promise<WebhookTarget | undefined>;
  /** Runs `work` in one transaction: all of it is kept, or none. */
  transaction<T>(work: (tx: IntakeTransaction) => Promise<T>): Promise<T>;
}

export interface IntakeTransaction {
  insertNode(node: NewNode): Promise<void>;
  insertEdge(edge: NewEdge): Promise<void>;
  /**
   * Copies the edge target's access rows to the edge source as a step of its own (a savepoint or
   * subtransaction): on failure only that step is rolled back (node and edge stay) and it throws.
   */
  propagateAccess(edgeId: string): Promise<void>;
  /** Queues a job, in this transaction, that runs the propagation again later. */
  queueAccessRepair(edgeId: string): Promise<void>;
}
