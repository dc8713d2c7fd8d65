import type { NewEdge, NewNode } from '@inntak/graph';

/** What the token lookup yields: the webhook, its target collection and its template. */
export interface WebhookTarget {
  webhookId: string;
  collectionId: string;
  templateId: string | null;
}

/**
 * The intake's one boundary: the store. Two calls, because the lookup comes before the body is
 * read and the write after it is rendered. The Postgres adapter implements it; tests wrap it to
 * inject a failure at a step the database cannot be made to fail at.
 */
export interface IntakeStore {
  findWebhookByToken(token: string): Promise<WebhookTarget | undefined>;
  /**
   * Writes the content node, its belongs_to edge and the edge's access propagation in one
   * transaction. Propagation is a step of its own: if it fails, only it is undone (node and edge
   * are kept), a repair job is queued in the same transaction and its error is returned. If the
   * node or edge insert fails, nothing is kept and it throws an IntakeWriteError naming the step.
   */
  writeContent(node: NewNode, edge: NewEdge): Promise<{ propagationError: string | null }>;
}

/** A failed intake write, with the insert that failed (the spec answers each differently). */
export class IntakeWriteError extends Error {
  constructor(
    readonly step: 'node' | 'edge',
    options: { cause: unknown },
  ) {
    super(`intake ${step} insert failed`, options);
    this.name = 'IntakeWriteError';
  }
}
