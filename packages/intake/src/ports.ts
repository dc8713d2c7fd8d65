import type { NewEdge, NewNode } from '@inntak/graph';
import type { WebhookSecret } from './signatures.js';

/** What the token lookup yields: the webhook, its target collection and its template. */
export interface WebhookTarget {
  webhookId: string;
  collectionId: string;
  templateId: string | null;
  /** The signing secret, when the webhook has one: requests must then be signed. */
  secret: WebhookSecret | null;
}

/** A delivery log row's facts (docs/deliveries.md); the outcome is added where it is known. */
export interface DeliveryLogEntry {
  /** UUIDv7 made when the request arrived: the log pages newest first by it. */
  id: string;
  webhookId: string;
  receivedAt: Date;
  /** The sender's id of the delivery (duplicates are recognised by it). */
  deliveryId: string | null;
  event: string | null;
  /** The body's size as received (Content-Length, else the bytes read). */
  bytes: number;
  /** From arrival to the write (for a 200) or to the answer (for a failure). */
  durationMs: number;
}

/** A failed delivery: the status answered and the error text. */
export interface FailedDelivery extends DeliveryLogEntry {
  status: number;
  error: string;
}

export interface WriteOutcome {
  propagationError: string | null;
  /** The node and edge of the first copy, when this delivery was a duplicate (nothing was written). */
  duplicateOf: { nodeId: string; edgeId: string } | null;
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
  /**
   * With the delivery's log row in the same transaction; a delivery id seen for the webhook in
   * the last 24 hours writes only the log row and returns the first copy's node and edge.
   */
  writeContent(node: NewNode, edge: NewEdge, log: DeliveryLogEntry): Promise<WriteOutcome>;
  /**
   * Counts a delivery that was refused or failed, in its webhook's row for the minute, status
   * and reason (docs/deliveries.md#refusals); called after the answer is sent.
   */
  recordFailedDelivery(delivery: FailedDelivery): Promise<void>;
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
