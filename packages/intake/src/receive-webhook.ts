import { AppError, isUuid, mapJsonStrings, RawJson, storable, uuidv7, type Logger } from '@inntak/core';
import { webhookBelongsToEdge, webhookContentNode } from '@inntak/graph';
import { renderPayload, TEMPLATE_HEADERS, type Headers, type JsonObject } from '@inntak/templates';
import type { ParsedBody } from './parse-body.js';
import { senderDeliveryId, senderEvent } from './delivery-facts.js';
import { IntakeWriteError, type DeliveryLogEntry, type IntakeStore, type WebhookTarget } from './ports.js';

export interface IntakeResponse {
  node_id: string;
  edge_id: string;
  /** Extra response fields a template asks for (Slack's challenge). */
  reply?: JsonObject;
  /** The template that rendered the payload; null for generic extraction. */
  templateId: string | null;
  /** Access propagation failed and a repair job was queued (the answer is still 200). */
  repairQueued: boolean;
  /** The sender's delivery id was seen in the last 24 hours: the first copy's ids, nothing stored. */
  duplicate: boolean;
}

/** What stands in for the webhook's own token wherever a payload echoes it (as in the logs). */
export const REDACTED_TOKEN = ':token';

/**
 * Steps 1–2 of the spec's processing order: the webhook for a token, or 404. Runs before the
 * body is read, so a stranger's body costs nothing. A token that is not a UUID can match no
 * webhook: it answers like an unknown one, without a query.
 */
export async function findWebhook(store: IntakeStore, token: string): Promise<WebhookTarget> {
  if (!isUuid(token)) throw new AppError('webhook_not_found');
  let target;
  try {
    target = await store.findWebhookByToken(token.toLowerCase());
  } catch (cause) {
    throw new AppError('token_lookup_failed', { cause });
  }
  if (!target) throw new AppError('webhook_not_found');
  return target;
}

/**
 * Step 3 for a found webhook, pure: the payload as it will be stored, and the template's
 * rendering of it. Big bodies go through here on a worker thread (apps/api), small ones inline.
 */
export interface Delivery {
  title: string;
  content: string;
  extraMetadata: JsonObject;
  /** Extra response fields a template asks for (Slack's challenge). */
  reply?: JsonObject;
  /** The payload to store: the value, or its JSON text when it was prepared as text. */
  payload: unknown;
  /** The template that rendered it; null for generic extraction. */
  templateId: string | null;
  notes: {
    unknownTemplate: boolean;
    templateError?: string;
    unsupportedEvent?: string;
    /** NUL or lone surrogates were replaced. */
    unstorable: boolean;
    /** The webhook's own token was replaced. */
    redacted: boolean;
  };
}

/**
 * Cleans and renders a parsed body. With `asText`, the payload comes back as JSON text
 * (RawJson): the body's own text when cleaning changed nothing, so a large payload is never
 * serialized again.
 */
export function renderDelivery(
  target: WebhookTarget,
  request: { token: string; body: ParsedBody; headers: Headers },
  options: { asText?: boolean } = {},
): Delivery {
  const cleaned = cleanPayload(request.body.payload, request.token);
  const rendering = renderPayload(target.templateId, cleaned.payload, request.headers, target.locale);
  let payload = cleaned.payload;
  if (options.asText) {
    const unchanged = cleaned.payload === request.body.payload && request.body.json !== undefined;
    payload = new RawJson(unchanged ? request.body.json! : JSON.stringify(cleaned.payload));
  }
  const eventHeaders = templateHeaders(request.headers);
  return {
    title: rendering.result.title,
    content: rendering.result.content,
    extraMetadata: eventHeaders ? { ...rendering.result.extra_metadata, event_headers: eventHeaders } : rendering.result.extra_metadata,
    reply: rendering.result.reply,
    payload,
    templateId: rendering.templateId,
    notes: {
      unknownTemplate: rendering.unknownTemplate,
      templateError: rendering.templateError,
      unsupportedEvent: rendering.result.unsupported_event,
      unstorable: cleaned.unstorable,
      redacted: cleaned.redacted,
    },
  };
}

/**
 * The log row of a delivery about to be written: the sender's delivery id and event (the
 * template's name for the event when it has one, else the sender's header). A delivery id over
 * 200 characters throws 400 (docs/deliveries.md#duplicates).
 */
export function deliveryLogEntry(
  target: WebhookTarget,
  headers: Headers,
  delivery: Delivery,
  request: { receivedAt: Date; bytes: number },
): DeliveryLogEntry {
  const templateEvent = delivery.extraMetadata.event;
  return {
    id: uuidv7(request.receivedAt.getTime()),
    webhookId: target.webhookId,
    receivedAt: request.receivedAt,
    deliveryId: senderDeliveryId(headers, delivery.payload, target.secret?.scheme ?? null),
    event: typeof templateEvent === 'string' ? templateEvent : senderEvent(headers),
    bytes: request.bytes,
    durationMs: Math.round(Date.now() - request.receivedAt.getTime()),
    ...(target.previousToken ? { previousToken: target.previousToken.hash } : {}),
  };
}

/**
 * Steps 4–7 for a rendered delivery: node, edge, access rows and the delivery's log row in one
 * transaction, one store call. A duplicate answers with the first copy's ids.
 */
export async function storeDelivery(
  deps: { store: IntakeStore; logger: Logger },
  target: WebhookTarget,
  delivery: Delivery,
  log: DeliveryLogEntry,
): Promise<IntakeResponse> {
  const { store, logger } = deps;
  const { notes } = delivery;
  const about = { webhook_id: target.webhookId, template_id: target.templateId };
  if (notes.unstorable) {
    logger.warn('payload held NUL or lone surrogate characters, which PostgreSQL cannot store; replaced', { webhook_id: target.webhookId });
  }
  if (notes.redacted) {
    logger.info("payload echoed the webhook's own token; redacted before storing", { webhook_id: target.webhookId });
  }
  if (notes.unknownTemplate) logger.warn('unknown template_id on webhook; using generic extraction', about);
  if (notes.templateError !== undefined) {
    logger.error('template failed on a payload; using generic extraction', { ...about, error: notes.templateError });
  }
  if (notes.unsupportedEvent !== undefined) {
    // Senders disable hooks that fail, so such events are stored generically and only noted.
    logger.info('event type not rendered in detail by the template', { ...about, event: notes.unsupportedEvent });
  }

  const node = webhookContentNode({
    webhookId: target.webhookId,
    title: delivery.title,
    content: delivery.content,
    payload: delivery.payload,
    extraMetadata: delivery.extraMetadata,
  });
  const edge = webhookBelongsToEdge(node.id, target.collectionId, target.webhookId);

  let written;
  try {
    written = await store.writeContent(node, edge, log);
  } catch (err) {
    // An AppError from the store is already the answer (the webhook vanished under us: 404);
    // any other failure (connection, commit) means the node was not created either.
    if (err instanceof AppError) throw err;
    const code = err instanceof IntakeWriteError && err.step === 'edge' ? 'edge_insert_failed' : 'node_insert_failed';
    throw new AppError(code, { cause: err instanceof IntakeWriteError ? err.cause : err });
  }
  if (written.duplicateOf) {
    logger.info('delivery seen before; answered with the first copy', { webhook_id: target.webhookId, delivery_id: log.deliveryId });
    const response: IntakeResponse = { node_id: written.duplicateOf.nodeId, edge_id: written.duplicateOf.edgeId, templateId: delivery.templateId, repairQueued: false, duplicate: true };
    if (delivery.reply) response.reply = delivery.reply;
    return response;
  }
  const repairQueued = written.propagationError !== null;
  if (repairQueued) {
    // The spec keeps the request successful; the repair queued with the write brings the rows later.
    logger.error('access propagation failed; repair queued', { node_id: node.id, edge_id: edge.id, error: written.propagationError });
  }

  const response: IntakeResponse = { node_id: node.id, edge_id: edge.id, templateId: delivery.templateId, repairQueued, duplicate: false };
  if (delivery.reply) response.reply = delivery.reply;
  return response;
}

/** The headers templates read, as the request had them (absent when none): kept for re-rendering. */
function templateHeaders(headers: Headers): Record<string, string> | undefined {
  let kept: Record<string, string> | undefined;
  for (const name of TEMPLATE_HEADERS) {
    const value = headers[name];
    if (value !== undefined) (kept ??= {})[name] = storable(value).slice(0, 200);
  }
  return kept;
}

/**
 * The payload as it will be stored, in one walk over its strings and keys: jsonb cannot hold
 * NUL or lone surrogates (the one way a payload is not stored unchanged besides the next), and
 * the webhook's own token (in any case, alone or inside its URL) is a credential that every
 * reader of the collection would otherwise see.
 */
function cleanPayload(payload: unknown, token: string): { payload: unknown; unstorable: boolean; redacted: boolean } {
  // The token is a UUID (checked by findWebhook): hex digits and dashes, literal in a pattern.
  const tokenPattern = new RegExp(token, 'gi');
  let unstorable = false;
  let redacted = false;
  const cleaned = mapJsonStrings(payload, (text) => {
    let out = storable(text);
    if (out !== text) unstorable = true;
    tokenPattern.lastIndex = 0;
    if (tokenPattern.test(out)) {
      redacted = true;
      out = out.replace(tokenPattern, REDACTED_TOKEN);
    }
    return out;
  });
  return { payload: cleaned, unstorable, redacted };
}
