import { AppError } from '@inntak/core';
import { requireLevel, requireSubject } from './authorize.js';
import { grantingEdge, levelToGrant } from './grants.js';
import type { Actor } from './identity.js';
import type { AccessLevel } from './levels.js';
import type { GraphStore, GraphTx } from './ports.js';

/**
 * Sets the subject's explicit grant on the object to `access`: the granting edges between them
 * are replaced by one (owner edge for `owner`, member_of otherwise). Granting `owner` takes
 * `owner`; any other level takes `admin`.
 */
export async function grantAccess(store: GraphStore, actor: Actor, input: { subject_id: string; object_id: string; access: AccessLevel }): Promise<{ edge_id: string }> {
  return store.transaction(async (tx) => {
    await lockGrants(tx, actor, input.object_id);
    const current = await tx.explicitGrantEdges(input.subject_id, input.object_id);
    const strongest = current.some((e) => e.edge_type === 'owner') ? 'owner' : input.access;
    await requireLevel(tx, actor, input.object_id, levelToGrant(strongest), 'object_id');
    await requireSubject(tx, input.subject_id, 'subject_id');
    if (input.access !== 'owner') await keepAnOwner(tx, current, input.subject_id, input.object_id);
    const edge = grantingEdge(input.access);
    const edgeId = await tx.insertEdge({
      source_id: input.subject_id,
      target_id: input.object_id,
      edge_type: edge.edge_type,
      metadata: edge.metadata,
      created_by: actor.personId,
    });
    await tx.deleteEdges(current.map((e) => e.id));
    return { edge_id: edgeId };
  });
}

/** Removes the subject's explicit grants on the object; inherited rows (belongs_to) stay. */
export async function revokeAccess(store: GraphStore, actor: Actor, input: { subject_id: string; object_id: string }): Promise<{ removed: number }> {
  return store.transaction(async (tx) => {
    await lockGrants(tx, actor, input.object_id);
    const current = await tx.explicitGrantEdges(input.subject_id, input.object_id);
    const strongest = current.some((e) => e.edge_type === 'owner') ? 'owner' : 'admin';
    await requireLevel(tx, actor, input.object_id, levelToGrant(strongest), 'object_id');
    await keepAnOwner(tx, current, input.subject_id, input.object_id);
    await tx.deleteEdges(current.map((e) => e.id));
    return { removed: current.length };
  });
}

/**
 * grant_access and revoke_access read the subject's grant edges, check the actor, then replace
 * them: two of them on one object must not interleave, or a demotion racing the subject's own
 * re-grant is lost (both read the old edge, both write). The object's row lock serialises them
 * (the same lock propagation takes later), and the checks below it read what the other wrote.
 */
async function lockGrants(tx: GraphTx, actor: Actor, objectId: string): Promise<void> {
  // Anyone who grants or revokes holds admin at least: checked first, so a caller without it
  // cannot hold the lock (which intake into the object waits for).
  await requireLevel(tx, actor, objectId, 'admin', 'object_id');
  await tx.nodeKindOf(objectId, { forUpdate: true });
}

/**
 * Replacing or removing a subject's owner edge must leave the object another owner: a
 * collection nobody owns can no longer be administered by anyone but a system administrator.
 */
export async function keepAnOwner(tx: GraphTx, current: ReadonlyArray<{ edge_type: string }>, subjectId: string, objectId: string): Promise<void> {
  if (!current.some((e) => e.edge_type === 'owner')) return;
  // Locking every owner edge of the object serialises two owners demoting each other at once.
  const owners = await tx.ownersForUpdate(objectId);
  if (!owners.some((o) => o !== subjectId)) throw new AppError('conflict', { detail: 'den siste eieren kan ikke fjernes' });
}
