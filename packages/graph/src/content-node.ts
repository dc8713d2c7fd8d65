import { storable, uuidv7 } from '@inntak/core';
import type { JsonObject, NewEdge, NewNode } from './types.js';

/**
 * The content node that webhook intake creates, exactly as the spec's table lays it out.
 * The template's extra metadata is merged last, so on a clash its value wins.
 */
export function webhookContentNode(input: {
  webhookId: string;
  title: string;
  content: string;
  payload: unknown;
  extraMetadata: JsonObject;
}): NewNode {
  return {
    id: uuidv7(),
    node_kind: 'content',
    title: input.title === '' ? null : storable(input.title),
    content: input.content === '' ? null : storable(input.content),
    visibility: 'hidden',
    metadata: {
      source: 'webhook',
      webhook_id: input.webhookId,
      payload: input.payload,
      ...input.extraMetadata,
    },
    created_by: input.webhookId,
  };
}

/** The system `belongs_to` edge from a new content node to its webhook's collection. */
export function webhookBelongsToEdge(nodeId: string, collectionId: string, webhookId: string): NewEdge {
  return {
    id: uuidv7(),
    source_id: nodeId,
    target_id: collectionId,
    edge_type: 'belongs_to',
    metadata: {},
    system: true,
    created_by: webhookId,
  };
}
