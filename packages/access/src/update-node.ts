import { AppError } from '@inntak/core';
import { requireLevel } from './authorize.js';
import type { Actor } from './identity.js';
import { ACCESS_LEVELS, type AccessLevel } from './levels.js';
import type { GraphStore } from './ports.js';
import { edgeRule, nodeKindRule } from './write-policy.js';

export interface NodeChange {
  node_id: string;
  /** Absent: unchanged; null: cleared. */
  title?: string | null;
  content?: string | null;
}

/**
 * update_node (issue 39): a node's title and content, by the write policy's row for its kind
 * (`write`: member for content). Only kinds create_node makes and whose settings others may
 * change (`setMetadata`): a collection, webhook, orchestration, person, tag or medium changes
 * through its own operations (400). A node on a publication's public pages needs what publishing
 * it needed (published_in's source: admin), or a member could put text on a page only its
 * administrators may publish. The row lock serialises two edits.
 */
export async function updateNode(store: GraphStore, actor: Actor, input: NodeChange): Promise<{ id: string }> {
  if (input.title === undefined && input.content === undefined) throw new AppError('invalid_input', { detail: 'title eller content må være med' });
  return store.transaction(async (tx) => {
    await tx.nodeKindOf(input.node_id, { forUpdate: true });
    const kind = (await requireLevel(tx, actor, input.node_id, null, 'node_id')).node_kind;
    const rule = nodeKindRule(kind);
    if (rule.createNode === 'never' || !rule.setMetadata) throw new AppError('invalid_input', { detail: `node_id: en ${kind} endres med sin egen operasjon` });
    if (rule.write === 'system_admin' && !actor.isAdmin) throw new AppError('forbidden', { detail: `node_id: bare en systemadministrator kan endre ${kind}` });
    // A system administrator passes every level (metadataWriteNeed does the same).
    let need: AccessLevel = rule.write === 'system_admin' ? 'owner' : rule.write;
    const publishing = edgeRule('published_in').create.source;
    if (isLevel(publishing) && ACCESS_LEVELS.indexOf(publishing) > ACCESS_LEVELS.indexOf(need) && (await tx.isPublished(input.node_id))) need = publishing;
    await requireLevel(tx, actor, input.node_id, need, 'node_id');
    await tx.updateNode(input.node_id, { title: input.title, content: input.content });
    return { id: input.node_id };
  });
}

function isLevel(need: string | null): need is AccessLevel {
  return need !== null && (ACCESS_LEVELS as readonly string[]).includes(need);
}
