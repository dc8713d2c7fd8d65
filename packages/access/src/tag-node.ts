import { AppError } from '@inntak/core';
import { normalizeTag, TAGGED_EDGE_TYPE } from '@inntak/graph';
import { requireEnd } from './authorize.js';
import type { Actor } from './identity.js';
import type { GraphStore } from './ports.js';
import { edgeRule } from './write-policy.js';

/**
 * Tags a node (docs/graph.md): finds or creates the tag's node and links the node to it with a
 * `tagged` edge. Needs what the write policy's `tagged` rule needs on the source (`member`;
 * admin on an orchestration). Tagging twice returns the existing edge. Tag nodes are `open` (a
 * tag name is a public label) and owned by nobody.
 */
export async function tagNode(store: GraphStore, actor: Actor, input: { node_id: string; tag: string }): Promise<{ edge_id: string; tag_id: string; tag: string }> {
  const tag = normalizeTag(input.tag);
  if (tag === null) throw new AppError('invalid_input', { detail: 'tag: 1–64 tegn, uten skråstrek eller kontrolltegn' });
  return store.transaction(async (tx) => {
    await requireEnd(tx, actor, input.node_id, edgeRule(TAGGED_EDGE_TYPE).create.source, 'node_id');
    const tagId = await tx.tagNodeId(tag);
    const edgeId =
      (await tx.edgeBetween(input.node_id, tagId, TAGGED_EDGE_TYPE)) ??
      (await tx.insertEdge({ source_id: input.node_id, target_id: tagId, edge_type: TAGGED_EDGE_TYPE, created_by: actor.personId }));
    return { edge_id: edgeId, tag_id: tagId, tag };
  });
}
