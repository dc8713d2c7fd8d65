import { AppError, isUuid, storableJson, type Logger } from '@inntak/core';
import { webhookBelongsToEdge, webhookContentNode, type NewEdge, type NewNode } from '@inntak/graph';
import { renderPayload, type Headers, type JsonObject } from '@inntak/templates';
import type { IntakeStore } from './ports.js';

export interface IntakeRequest {
  token: string;
  payload: unknown;
  headers: Headers;
}

export interface IntakeResponse {
  node_id: string;
  edge_id: string;
  /** Extra response fields a template asks for (Slack's challenge). */
  reply?: JsonObject;
}

/**
 * The spec's processing order for POST /api/webhook/{token}: find the webhook, render the
 * payload, then write node, edge and access rows in one transaction.
 */
export async function receiveWebhook(
  deps: { store: IntakeStore; logger: Logger },
  request: IntakeRequest,
): Promise<IntakeResponse> {
  const { store, logger } = deps;
  // A token that is not a UUID can match no webhook: answer like an unknown one, without a query.
  if (!isUuid(request.token)) throw new AppError('webhook_not_found');

  let target;
  try {
    target = await store.findWebhookByToken(request.token.toLowerCase());
  } catch (cause) {
    throw new AppError('token_lookup_failed', { cause });
  }
  if (!target) throw new AppError('webhook_not_found');

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

  try {
    await writeIntake(store, logger, node, edge);
  } catch (err) {
    // BEGIN or COMMIT failing means the node was not created either.
    throw err instanceof AppError ? err : new AppError('node_insert_failed', { cause: err });
  }

  const response: IntakeResponse = { node_id: node.id, edge_id: edge.id };
  if (rendering.result.reply) response.reply = rendering.result.reply;
  return response;
}

async function writeIntake(store: IntakeStore, logger: Logger, node: NewNode, edge: NewEdge): Promise<void> {
  await store.transaction(async (tx) => {
    try {
      await tx.insertNode(node);
    } catch (cause) {
      throw new AppError('node_insert_failed', { cause });
    }
    try {
      await tx.insertEdge(edge);
    } catch (cause) {
      throw new AppError('edge_insert_failed', { cause });
    }
    try {
      await tx.propagateAccess(edge.id);
    } catch (err) {
      // The spec keeps the request successful; a queued repair brings the rows later.
      logger.error('access propagation failed; repair queued', {
        node_id: node.id,
        edge_id: edge.id,
        error: err instanceof Error ? err.message : String(err),
      });
      await tx.queueAccessRepair(edge.id);
    }
  });
}
