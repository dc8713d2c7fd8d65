import { AppError, isUuid, storableJson, type Logger } from '@inntak/core';
import { webhookBelongsToEdge, webhookContentNode } from '@inntak/graph';
import { renderPayload, type Headers, type JsonObject } from '@inntak/templates';
import { IntakeWriteError, type IntakeStore, type WebhookTarget } from './ports.js';

export interface IntakeRequest {
  /** The webhook `findWebhook` found for the token. */
  target: WebhookTarget;
  payload: unknown;
  headers: Headers;
}

export interface IntakeResponse {
  node_id: string;
  edge_id: string;
  /** Extra response fields a template asks for (Slack's challenge). */
  reply?: JsonObject;
  /** Access propagation failed and a repair job was queued (the answer is still 200). */
  repairQueued: boolean;
}

/**
 * Steps 1–2 of the spec's processing order: the webhook for a token, or 404. A separate store
 * call from the write, so it can run before the body is read. A token that is not a UUID can
 * match no webhook: it answers like an unknown one, without a query.
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
 * Steps 3–7 for a found webhook: render the payload, then write node, edge and access rows in
 * one transaction, which is one store call.
 */
export async function receiveWebhook(
  deps: { store: IntakeStore; logger: Logger },
  request: IntakeRequest,
): Promise<IntakeResponse> {
  const { store, logger } = deps;
  const { target } = request;
  const rendering = renderPayload(target.templateId, request.payload, request.headers);
  if (rendering.unknownTemplate) {
    logger.warn('unknown template_id on webhook; using generic extraction', {
      webhook_id: target.webhookId,
      template_id: target.templateId,
    });
  }
  if (rendering.templateError !== undefined) {
    logger.error('template failed on a payload; using generic extraction', {
      webhook_id: target.webhookId,
      template_id: target.templateId,
      error: rendering.templateError,
    });
  }
  if (rendering.result.unsupported_event !== undefined) {
    // Senders disable hooks that fail, so such events are stored generically and only noted.
    logger.info('event type not rendered in detail by the template', {
      webhook_id: target.webhookId,
      template_id: target.templateId,
      event: rendering.result.unsupported_event,
    });
  }

  // jsonb cannot hold NUL or lone surrogates: the one way a payload is not stored unchanged.
  const payload = storableJson(request.payload);
  if (payload !== request.payload) {
    logger.warn('payload held NUL or lone surrogate characters, which PostgreSQL cannot store; replaced', {
      webhook_id: target.webhookId,
    });
  }
  const node = webhookContentNode({
    webhookId: target.webhookId,
    title: rendering.result.title,
    content: rendering.result.content,
    payload,
    extraMetadata: rendering.result.extra_metadata,
  });
  const edge = webhookBelongsToEdge(node.id, target.collectionId, target.webhookId);

  let written;
  try {
    written = await store.writeContent(node, edge);
  } catch (err) {
    // Any other failure (connection, commit) means the node was not created either.
    const code = err instanceof IntakeWriteError && err.step === 'edge' ? 'edge_insert_failed' : 'node_insert_failed';
    throw new AppError(code, { cause: err instanceof IntakeWriteError ? err.cause : err });
  }
  if (written.propagationError !== null) {
    // The spec keeps the request successful; the repair queued with the write brings the rows later.
    logger.error('access propagation failed; repair queued', { node_id: node.id, edge_id: edge.id, error: written.propagationError });
  }

  const response: IntakeResponse = { node_id: node.id, edge_id: edge.id, repairQueued: written.propagationError !== null };
  if (rendering.result.reply) response.reply = rendering.result.reply;
  return response;
}
