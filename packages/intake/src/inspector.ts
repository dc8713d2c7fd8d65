import { AppError, isUuid, uuidv7, type Logger } from '@inntak/core';
import type { Actor } from '@inntak/access';
import { webhookBelongsToEdge, webhookContentNode } from '@inntak/graph';
import type { DeliveriesTx, DeliveryStatusFilter } from './ports.js';
import { parseWebhookBody } from './parse-body.js';
import { renderDelivery } from './receive-webhook.js';
import { requireWebhookAdmin } from './webhook-admin.js';

/**
 * The delivery inspector (docs/deliveries.md#inspector): every request to a webhook, accepted
 * or refused, with its masked headers and its body; search; replay. For the webhook's
 * administrators (admin or owner on its collection) and system administrators, like its log.
 */

/** One request as the inspector lists it. */
export interface InspectedRequest {
  id: string;
  webhook_id: string;
  received_at: string;
  status: number;
  /** The exact reason of a refusal (a missing signature and a wrong one differ). */
  error?: string;
  delivery_id?: string;
  event?: string;
  bytes: number;
  duration_ms: number;
  node_id?: string;
  duplicate: boolean;
  /** The log row this one replays. */
  replay_of?: string;
  /**
   * Refusals past the first kept whole in their minute: how many of this status and reason were
   * only counted (no headers, no body), from `received_at` to `last_received_at`.
   */
  counted?: number;
  last_received_at?: string;
}

/** A request with what was kept of it. */
export interface RequestDetail extends InspectedRequest {
  headers: Record<string, string>;
  /**
   * The body: of a refused request as kept (cut at 64 KiB: `truncated`), of an accepted one its
   * content node's stored payload (`from_node`); null when it was refused before being read or
   * its node is gone.
   */
  body: { text: string; truncated: boolean; from_node: boolean } | null;
}

/** What the inspector searches by; a page newest first, before a row id (keyset). */
export interface RequestSearch {
  limit: number;
  before?: string;
  status?: DeliveryStatusFilter;
  /** The sender's delivery id, exactly. */
  deliveryId?: string;
  event?: string;
  from?: Date;
  to?: Date;
}

/** A webhook in the list's health view. */
export interface WebhookHealth {
  id: string;
  title: string | null;
  collection_id: string;
  collection_title: string | null;
  template_id: string | null;
  signature_scheme: string | null;
  created_at: Date;
  last_delivery: { received_at: Date; status: number } | null;
  failures_hour: number;
  failures_day: number;
}

/** The inspector's reads and replay's write, added to a deliveries transaction. */
export interface InspectorTx extends DeliveriesTx {
  searchRequests(webhookId: string, search: RequestSearch): Promise<{ requests: InspectedRequest[]; next_cursor: string | null }>;
  /** An accepted request's body only while `actor` reads its content node whole (every read path filters by the caller's access); null otherwise. */
  requestDetail(actor: Actor, webhookId: string, requestId: string): Promise<RequestDetail | undefined>;
  /** The webhooks the actor administers with their health, oldest first, at most `limit`. */
  webhookHealth(actor: Actor, limit: number): Promise<WebhookHealth[]>;
  /** The webhook's token, collection, template and locale, as the intake looks them up. */
  replayTarget(webhookId: string): Promise<{ token: string; collectionId: string; templateId: string | null; locale: 'nb' | 'en' } | undefined>;
  /** Writes a replay as the intake writes a delivery (node, edge, access rows, log row), marked as replaying `replayOf`. */
  writeReplay(write: { node: ReturnType<typeof webhookContentNode>; edge: ReturnType<typeof webhookBelongsToEdge>; logId: string; webhookId: string; deliveryId: string | null; event: string | null; bytes: number; headers: Record<string, string>; replayOf: string }): Promise<void>;
}

/** The inspector's port: the deliveries port with the reads above (packages/postgres implements both). */
export interface InspectorStore {
  transaction<T>(work: (tx: InspectorTx) => Promise<T>): Promise<T>;
}

/** At most this many webhooks in the health view (the rest by search/REST: GET /admin/webhooks). */
export const HEALTH_LIMIT = 200;

/** The webhooks the actor administers, with collection, last delivery and recent failures. */
export function listWebhookHealth(store: InspectorStore, actor: Actor, limit: number = HEALTH_LIMIT): Promise<WebhookHealth[]> {
  return store.transaction((tx) => tx.webhookHealth(actor, Math.min(Math.max(limit, 1), HEALTH_LIMIT)));
}

/** Requests to a webhook, newest first, filtered; keyset pages on the row id. */
export function searchRequests(store: InspectorStore, actor: Actor, webhookId: string, search: RequestSearch): Promise<{ requests: InspectedRequest[]; next_cursor: string | null }> {
  if (search.from && search.to && search.from > search.to) throw new AppError('invalid_input', { detail: 'fra: må være før til' });
  return store.transaction(async (tx) => {
    await requireWebhookAdmin(tx, actor, webhookId);
    return tx.searchRequests(webhookId, { ...search, limit: Math.min(Math.max(search.limit, 1), 200) });
  });
}

/** One request with its headers and body; 404 when the webhook has no such request (or it was pruned). */
export function inspectRequest(store: InspectorStore, actor: Actor, webhookId: string, requestId: string): Promise<RequestDetail> {
  return store.transaction(async (tx) => {
    await requireWebhookAdmin(tx, actor, webhookId);
    const found = isUuid(requestId) ? await tx.requestDetail(actor, webhookId, requestId) : undefined;
    if (!found) throw new AppError('not_found', { detail: 'delivery_id' });
    return found;
  });
}

/**
 * replay_delivery: a stored request rendered again through the webhook's current template and
 * written as a new delivery (a new node in the collection, a log row marked as a replay of the
 * original). The body is the original's content node payload (accepted) or the kept body
 * (refused: the admin vouches for it, its signature is not checked again). Not possible (409)
 * when there is no whole body to replay: refused before it was read, cut at the size cap, or
 * its node deleted or no longer readable by the actor (moved to a collection hidden from them:
 * a replay would copy it into the webhook's collection). No duplicate check: replaying is asking for a new copy.
 */
export async function replayDelivery(
  store: InspectorStore,
  actor: Actor,
  input: { webhook_id: string; delivery_id: string },
  logger?: Logger,
): Promise<{ id: string; node_id: string; edge_id: string; replay_of: string }> {
  return store.transaction(async (tx) => {
    await requireWebhookAdmin(tx, actor, input.webhook_id);
    const original = isUuid(input.delivery_id) ? await tx.requestDetail(actor, input.webhook_id, input.delivery_id) : undefined;
    if (!original || original.counted !== undefined) throw new AppError('not_found', { detail: 'delivery_id' });
    if (!original.body) throw new AppError('conflict', { detail: 'leveransen har ikke noe lagret innhold å spille av' });
    if (original.body.truncated) throw new AppError('conflict', { detail: 'innholdet ble kortet av ved lagring og kan ikke spilles av' });
    const target = (await tx.replayTarget(input.webhook_id))!;
    const headers = original.headers;
    const body = parseWebhookBody(Buffer.from(original.body.text), original.body.from_node ? 'application/json' : headers['content-type']);
    const delivery = renderDelivery(
      { webhookId: input.webhook_id, collectionId: target.collectionId, templateId: target.templateId, locale: target.locale, secret: null },
      { token: target.token, body, headers },
    );
    if (delivery.notes.templateError !== undefined) logger?.error('template failed on a replayed payload; using generic extraction', { webhook_id: input.webhook_id, error: delivery.notes.templateError });
    const node = webhookContentNode({ webhookId: input.webhook_id, title: delivery.title, content: delivery.content, payload: delivery.payload, extraMetadata: { ...delivery.extraMetadata, replay_of: original.id } });
    const edge = webhookBelongsToEdge(node.id, target.collectionId, input.webhook_id);
    const templateEvent = delivery.extraMetadata.event;
    const id = uuidv7();
    await tx.writeReplay({
      node,
      edge,
      logId: id,
      webhookId: input.webhook_id,
      deliveryId: original.delivery_id ?? null,
      event: typeof templateEvent === 'string' ? templateEvent : (original.event ?? null),
      bytes: Buffer.byteLength(original.body.text),
      headers,
      replayOf: original.id,
    });
    return { id, node_id: node.id, edge_id: edge.id, replay_of: original.id };
  });
}
