import type { Actor, WriterLevel } from '@inntak/access';
import type { JsonObject, NewEdge, NewNode } from '@inntak/graph';
import type { Locale } from '@inntak/templates';
import type { Rerendered } from './rerender.js';
import type { SignatureScheme, WebhookSecret } from './signatures.js';

/** What the token lookup yields: the webhook, its target collection and its template. */
export interface WebhookTarget {
  webhookId: string;
  collectionId: string;
  templateId: string | null;
  /** The language the template writes in: the webhook's `metadata.locale`, default nb (docs/templates.md#language). */
  locale: Locale;
  /** The signing secret, when the webhook has one: requests must then be signed. */
  secret: WebhookSecret | null;
  /**
   * Present when the token that found the webhook is a previous one, rotated away with a grace
   * period (docs/deliveries.md#rotation): its hash, and when its grace ends (ISO time).
   */
  previousToken?: { hash: string; until: string };
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
  /** The hash of the previous token the delivery came with, within its grace; absent: the current token. */
  previousToken?: string;
  /** The request's headers as kept: secrets and signatures masked (request-capture.ts). */
  headers?: Record<string, string>;
}

/** A failed delivery: the status answered and the error text. */
export interface FailedDelivery extends DeliveryLogEntry {
  status: number;
  error: string;
  /** What it is counted by: the error without its detail unless the detail is ours (a signature's reason). */
  reason?: string;
  /** The body as kept (up to BODY_CAP_BYTES); null when the request was refused before it was read. */
  body?: { text: string; truncated: boolean } | null;
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

/**
 * The delivery's node (or log row) is already in the database: a spooled entry replayed a
 * second time (its first write committed without an answer, or another process replayed it).
 * A step-'node' failure, so a live intake, where it cannot happen, would answer as before.
 */
export class AlreadyWrittenError extends IntakeWriteError {
  constructor(options: { cause: unknown }) {
    super('node', options);
    this.name = 'AlreadyWrittenError';
  }
}

/** A rotated-away token as its webhook's administrators see it: never the token, only its grace and hits. */
export interface PreviousToken {
  rotated_at: Date;
  grace_until: Date;
  /** The grace was ended early (end_webhook_token_grace). */
  ended_early: boolean;
  /** Still accepted now. */
  active: boolean;
  /** Requests that came with it during its grace, accepted or refused. */
  hits: number;
  last_hit_at: Date | null;
}

/** A webhook as its administrators see it (token included: only they ever see it). */
export interface AdministeredWebhook {
  id: string;
  title: string | null;
  token: string;
  template_id: string | null;
  collection_id: string;
  /** The signature scheme requests must be signed with, or null (docs/deliveries.md); never the secret. */
  signature_scheme: SignatureScheme | null;
  created_at: Date;
}

/**
 * One row of a webhook's delivery log as admins read it (docs/deliveries.md): an accepted
 * delivery, or the refusals of one minute, status and reason counted in one row (`count`,
 * `last_received_at`; `received_at`, `error`, `delivery_id` and `event` are the first's).
 */
export interface DeliveryView {
  id: string;
  webhook_id: string;
  received_at: string;
  status: number;
  error?: string;
  node_id?: string;
  edge_id?: string;
  delivery_id?: string;
  event?: string;
  duplicate: boolean;
  bytes: number;
  duration_ms: number;
  /** It came with a previous token, within its grace (docs/deliveries.md#rotation). */
  previous_token?: boolean;
  /** Refusals only: how many requests this row counts, and when the last of them came. */
  count?: number;
  last_received_at?: string;
}

/** `status` filter: one HTTP status, `failed` (anything but 200), or `duplicate`. */
export type DeliveryStatusFilter = number | 'failed' | 'duplicate';

/** A page of the delivery log: newest first, before a row id (keyset). */
export interface DeliveryPage {
  limit: number;
  before?: string;
  status?: DeliveryStatusFilter;
}

/** A content node a webhook delivered, as re-rendering reads it. */
export interface StoredDelivery {
  node_kind: string;
  metadata: JsonObject;
  created_by: string | null;
}

/** Which of a webhook's content nodes: created since `since`, with ids after `after`. */
export interface DeliveredSince {
  since?: Date;
  after?: string;
}

/**
 * Plain reads and writes inside one webhook-administration transaction: webhooks, their
 * secrets, their delivery log, re-rendering what they delivered. Who may is the use cases'
 * business (webhook-admin.ts, delivery-admin.ts).
 */
export interface WebhookAdminTx {
  /** The node's kind and the actor's level on it; undefined when it is missing or hidden from the actor. */
  levelOn(actor: Actor, nodeId: string): Promise<WriterLevel | undefined>;
  /** The node's kind, whoever asks; undefined when there is no such node. */
  nodeKindOf(nodeId: string): Promise<string | undefined>;
  /** The collection a node belongs to (the target of its first belongs_to edge). */
  firstCollectionOf(nodeId: string): Promise<string | undefined>;
  /** The webhook node (token and template in its metadata) and its belongs_to edge to the collection. */
  insertWebhook(webhook: { collectionId: string; token: string; templateId: string | null; locale: Locale | null; title: string | null; createdBy: string | null }): Promise<{ id: string; edgeId: string }>;
  /** The template, and the locale when one is given (absent: the webhook keeps its own). */
  setWebhookTemplate(webhookId: string, templateId: string | null, locale?: Locale): Promise<void>;
  setWebhookToken(webhookId: string, token: string): Promise<void>;
  /** Keeps a previous token (by its hash) accepted for `graceSeconds` from now (the database's clock). */
  keepPreviousToken(webhookId: string, tokenHash: string, graceSeconds: number): Promise<void>;
  /** Ends every grace of the webhook's previous tokens now; how many were still running. */
  endPreviousTokens(webhookId: string): Promise<number>;
  /** The webhook's previous tokens, latest rotation first, at most `limit`. */
  previousTokens(webhookId: string, limit: number): Promise<PreviousToken[]>;
  /** The collections (id, title) the actor holds admin or owner on (every one for a system administrator), by title, at most `limit`. */
  administeredCollections(actor: Actor, limit: number): Promise<Array<{ id: string; title: string | null }>>;
  /** The webhook node's title (its name). */
  setWebhookTitle(webhookId: string, title: string | null): Promise<void>;
  /** The webhook node, its edges, its delivery log and claimed delivery ids (content it created stays). */
  deleteWebhook(webhookId: string): Promise<void>;
  /**
   * The webhooks whose collection (the target of the first `belongs_to`, as requireWebhookAdmin
   * judges) the actor holds admin on, every one for a system administrator: the one named, or
   * at most `limit` after the id `after` in id order (UUIDv7: the order they were made).
   */
  administeredWebhooks(actor: Actor, which: { id: string } | { limit: number; after?: string }): Promise<AdministeredWebhook[]>;
}

/** The webhook-administration port (packages/postgres implements it). */
export interface WebhookAdminStore {
  transaction<T>(work: (tx: WebhookAdminTx) => Promise<T>): Promise<T>;
}

/**
 * A deliveries transaction (delivery-admin.ts): webhook administration's reads (who administers
 * a webhook) and the webhook's signing secret, delivery log and stored deliveries.
 */
export interface DeliveriesTx extends WebhookAdminTx {
  /** Sets (scheme and secret) or, with null, removes the webhook's signing secret. */
  setWebhookSecret(webhookId: string, secret: WebhookSecret | null): Promise<void>;
  /** Accepted deliveries and counted refusals, merged, newest first. */
  deliveryLog(webhookId: string, page: DeliveryPage): Promise<{ deliveries: DeliveryView[]; next_cursor: string | null }>;
  /** The node as re-rendering needs it, its row locked; undefined when there is none. */
  storedDelivery(nodeId: string): Promise<StoredDelivery | undefined>;
  /** The webhook's template id (null: generic extraction); undefined when it is not a webhook (gone). */
  webhookTemplate(webhookId: string): Promise<string | null | undefined>;
  /** The webhook's `metadata.locale`, default nb: a re-render writes in the webhook's language now. */
  webhookLocale(webhookId: string): Promise<Locale>;
  /** Writes a rendering over the node's title, content and template keys. */
  writeRendering(nodeId: string, rendered: Rerendered): Promise<void>;
  /** How many content nodes the webhook delivered (created_by it), from `from`, that `actor` may re-render (admin on the node). */
  countDelivered(actor: Actor, webhookId: string, from: DeliveredSince): Promise<number>;
  /** The next `limit` of them, by id. */
  deliveredNodes(actor: Actor, webhookId: string, from: DeliveredSince, limit: number): Promise<Array<{ id: string; metadata: JsonObject }>>;
}

/** The deliveries port (packages/postgres implements it). */
export interface DeliveriesStore {
  transaction<T>(work: (tx: DeliveriesTx) => Promise<T>): Promise<T>;
}
