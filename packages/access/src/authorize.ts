import { AppError } from '@inntak/core';
import type { Actor } from './identity.js';
import { requireLevelOn, type LevelReads } from './level-check.js';
import type { AccessLevel } from './levels.js';
import type { GraphTx } from './ports.js';
import { endNeed, type EdgeEnds, type EndNeed } from './write-policy.js';

export interface NodeForWrite {
  id: string;
  node_kind: string;
  level: AccessLevel | null;
}

/**
 * The one access check of every use case, through any port's `levelOn(actor, id)` (the read
 * filter is the port's query): a node the actor may not see answers 404 (its existence is not
 * revealed), a visible node without the required level answers 403. `field` names the request
 * field in the 404.
 */
export async function requireLevel(tx: Pick<LevelReads, 'levelOn'>, actor: Actor, nodeId: string, required: AccessLevel | null, field: string): Promise<NodeForWrite> {
  const node = requireLevelOn(actor, await tx.levelOn(actor, nodeId), required, field);
  return { id: nodeId, node_kind: node.nodeKind, level: node.level };
}

/**
 * The subject of a grant only has to exist: person nodes are hidden, yet an admin names the
 * person they add (by the id the person reads from /me).
 */
export async function requireSubject(tx: GraphTx, nodeId: string, field: string): Promise<void> {
  if ((await tx.nodeKindOf(nodeId)) === undefined) throw new AppError('not_found', { detail: field });
}

/**
 * One end of an edge: `exists` only has to exist (a grant's subject: person nodes are hidden,
 * yet an admin names the person they add); null has to be visible to the actor; a level is held
 * (requireLevel). The node's kind may raise the need (an orchestration: admin).
 */
export async function requireEnd(tx: LevelReads, actor: Actor, nodeId: string, need: EndNeed, field: string): Promise<AccessLevel | null> {
  const kind = await tx.nodeKindOf(nodeId);
  if (kind === undefined) throw new AppError('not_found', { detail: field });
  const raised = endNeed(need, kind);
  if (raised === 'exists') return null;
  return (await requireLevel(tx, actor, nodeId, raised, field)).level;
}

/**
 * Checks both ends of an edge against what the write policy needs on them (`ends`, raised by
 * each node's kind: endNeed). Returns the actor's level on the source (null for a grant's
 * subject, which only has to exist).
 */
export async function requireEnds(
  tx: GraphTx,
  actor: Actor,
  edge: { source_id: string; target_id: string },
  ends: EdgeEnds,
  fields: [source: string, target: string],
): Promise<AccessLevel | null> {
  const source = await requireEnd(tx, actor, edge.source_id, ends.source, fields[0]);
  await requireEnd(tx, actor, edge.target_id, ends.target, fields[1]);
  return source;
}

/**
 * Tries each way of deleting the edge in turn; when none lets the actor, the refusal of the first
 * (the edge type's own rule) is the answer. A cleanup way checks only its one endpoint.
 */
export async function requireAnyOf(
  tx: GraphTx,
  actor: Actor,
  edge: { source_id: string; target_id: string },
  ways: ReadonlyArray<EdgeEnds & { cleanup: boolean }>,
): Promise<void> {
  let first: unknown;
  for (const way of ways) {
    try {
      if (!way.cleanup) await requireEnds(tx, actor, edge, way, ['edge_id', 'edge_id']);
      else if (way.source) await requireLevel(tx, actor, edge.source_id, way.source as AccessLevel, 'edge_id');
      else await requireLevel(tx, actor, edge.target_id, way.target as AccessLevel, 'edge_id');
      return;
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 'forbidden' && err.code !== 'not_found')) throw err;
      first ??= err;
    }
  }
  throw first;
}
