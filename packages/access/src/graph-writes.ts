import { AppError } from '@inntak/core';
import { edgeMetadataProblem, jsonProblem, type JsonObject, type Visibility } from '@inntak/graph';
import { requireAnyOf, requireEnd, requireEnds, requireLevel } from './authorize.js';
import { keepAnOwner } from './grant-access.js';
import { belongsToCap } from './grants.js';
import type { Actor } from './identity.js';
import type { AccessLevel } from './levels.js';
import type { GraphStore, GraphTx } from './ports.js';
import { deleteAlternatives, edgeRule, LAST_OBSERVES_DETAIL, requireCreateNode, requireEdgeOperation, requireObservable } from './write-policy.js';

/**
 * Graph writes a user (through the API), an orchestration or an operator (through the CLI)
 * makes. Each checks the actor against the write policy and commits in one transaction with the
 * access rows it implies (docs/access.md).
 */

/**
 * The deepest chain of belongs_to edges a write may make (docs/access.md): propagation walks
 * it one statement per level, so its length bounds what a grant costs.
 */
export const MAX_BELONGS_TO_DEPTH = 32;

export async function createPerson(store: GraphStore, input: { subject: string; issuer?: string; name?: string; admin?: boolean }): Promise<{ id: string }> {
  return store.transaction(async (tx) => ({
    id: await tx.insertPerson({ subject: input.subject, issuer: input.issuer ?? '', name: input.name ?? null, admin: input.admin ?? false }),
  }));
}

/** A collection with an `owner` edge from its owner, which grants the owner an `owner` row. */
export async function createCollection(store: GraphStore, input: { title: string; ownerId: string; visibility?: Visibility }): Promise<{ id: string }> {
  return store.transaction(async (tx) => {
    const id = await tx.insertNode({ node_kind: 'collection', title: input.title, visibility: input.visibility, created_by: input.ownerId });
    await tx.insertEdge({ source_id: input.ownerId, target_id: id, edge_type: 'owner', created_by: input.ownerId });
    return { id };
  });
}

export interface NewNodeInput {
  node_kind: string;
  title?: string | null;
  content?: string | null;
  visibility?: Visibility;
  metadata?: JsonObject;
  /** A collection the node belongs to; the actor needs `member` on it. */
  collection_id?: string;
}

/**
 * A node owned by its creator (an `owner` edge), optionally belonging to a collection. Which
 * kinds create_node makes, and for whom, is the write policy's (requireCreateNode): `via` names
 * the path that asks (an orchestration makes fewer kinds than the API).
 */
export async function createNode(
  store: GraphStore,
  actor: Actor & { personId: string },
  input: NewNodeInput,
  via: 'api' | 'orchestration' = 'api',
): Promise<{ id: string; edge_ids: string[] }> {
  requireCreateNode(actor, input.node_kind, via);
  checkMetadata(input.metadata, 'metadata');
  return store.transaction(async (tx) => {
    if (input.collection_id) await requireEnd(tx, actor, input.collection_id, edgeRule('belongs_to').create.target, 'collection_id');
    const { collection_id: collectionId, ...node } = input;
    const id = await tx.insertNode({ ...node, created_by: actor.personId });
    const edgeIds = [await tx.insertEdge({ source_id: actor.personId, target_id: id, edge_type: 'owner', created_by: actor.personId })];
    if (collectionId) {
      edgeIds.push(await tx.insertEdge({ source_id: id, target_id: collectionId, edge_type: 'belongs_to', created_by: actor.personId }));
    }
    return { id, edge_ids: edgeIds };
  });
}

export interface NewEdgeInput {
  source_id: string;
  target_id: string;
  edge_type: string;
  metadata?: JsonObject;
}

/**
 * An ordinary (non-system) edge, checked by the write policy (edgeRule), with its access
 * consequences. A belongs_to edge is checked for cycles and depth under one lock, and carries the
 * cap its maker's level on the source sets (belongsToCap).
 */
export async function createEdge(store: GraphStore, actor: Actor, input: NewEdgeInput): Promise<{ id: string }> {
  requireEdgeOperation(input.edge_type, 'create_edge');
  const problem = edgeMetadataProblem(input.metadata ?? {});
  if (problem) throw new AppError('invalid_input', { detail: `metadata: ${problem}` });
  return store.transaction(async (tx) => {
    const rule = edgeRule(input.edge_type);
    const source = await requireEnds(tx, actor, input, rule.create, ['source_id', 'target_id']);
    if (rule.publishes) await requireMayPublishTarget(tx, actor, input, rule.publishes);
    if (input.edge_type === 'observes') requireObservable((await tx.nodeKindOf(input.target_id))!, 'target_id');
    let metadata = input.metadata ?? {};
    if (input.edge_type === 'belongs_to') {
      await checkBelongsTo(tx, input.source_id, input.target_id);
      const { max_access: _ignored, ...rest } = metadata;
      metadata = { ...rest, ...belongsToCap(source ?? 'reader') };
    }
    const id = await tx.insertEdge({ ...input, metadata, created_by: actor.personId });
    return { id };
  });
}

/**
 * An edge that shows its target on a published source's pages (has_media) is drawn from a
 * published node only by whoever may publish the target: `level` on it and on every node it
 * belongs_to (issue 35, finding 1). Else a member of a hidden collection could put its media on
 * their own public page. The pages check the same again when they serve it (packages/postgres
 * publishing/pages.ts), so an edge drawn before publishing, or whose maker lost the level, does not count.
 */
async function requireMayPublishTarget(tx: GraphTx, actor: Actor, input: NewEdgeInput, level: AccessLevel): Promise<void> {
  if (!(await tx.isPublished(input.source_id))) return;
  const above = await tx.belongsToTargets(input.target_id);
  // The source's own media (it belongs to the source alone) was published with it.
  if (above.length > 0 && above.every((id) => id === input.source_id)) return;
  const refused = new AppError('forbidden', { detail: `target_id: fra en publisert node krever ${input.edge_type} ${level} på mediet og på alt det hører til` });
  for (const id of [input.target_id, ...above]) {
    await requireLevel(tx, actor, id, level, 'target_id').catch(() => {
      throw refused;
    });
  }
}

/**
 * Deletes an edge; what it granted is recomputed from the grants that remain. The write policy
 * says who may (deleteAlternatives): the edge type's delete rule, or admin (cleanup) on either
 * endpoint so an owner can always clear what others attached to their node. Removing an edge
 * never widens an orchestration: its last `observes` edge stays (409).
 */
export async function deleteEdge(store: GraphStore, actor: Actor, input: { edge_id: string }): Promise<{ id: string }> {
  return store.transaction(async (tx) => {
    const edge = await tx.edge(input.edge_id);
    if (!edge) throw new AppError('not_found', { detail: 'edge_id' });
    requireEdgeOperation(edge.edge_type, 'delete_edge');
    await requireAnyOf(tx, actor, edge, deleteAlternatives(edge));
    if (edge.edge_type === 'observes') await keepAnObservesEdge(tx, edge);
    // delete_edge on an owner edge is a revoke: it must leave the object an owner too.
    if (edge.edge_type === 'owner') await keepAnOwner(tx, [edge], edge.source_id, edge.target_id);
    await tx.deleteEdges([edge.id]);
    return { id: edge.id };
  });
}

/**
 * An orchestration with no `observes` edge matches everything its creator reads
 * (inntak_matching_orchestrations, db/migrations/011): deleting its last one would widen it. The
 * orchestration's row lock serialises two deletions of its last two edges.
 */
async function keepAnObservesEdge(tx: GraphTx, edge: { id: string; source_id: string }): Promise<void> {
  if ((await tx.nodeKindOf(edge.source_id, { forUpdate: true })) !== 'orchestration') return;
  if (!(await tx.hasOtherObservesEdge(edge.source_id, edge.id))) throw new AppError('conflict', { detail: LAST_OBSERVES_DETAIL });
}

function checkMetadata(metadata: unknown, field: string): void {
  if (metadata === undefined) return;
  const problem = jsonProblem(metadata);
  if (problem) throw new AppError('invalid_input', { detail: `${field}: ${problem}` });
}

/**
 * A new belongs_to source → target must close no cycle and make no chain longer than
 * MAX_BELONGS_TO_DEPTH (409 either way). Two such writes at once could each pass the check the
 * other invalidates (P → Q beside Q → P), so every user-made belongs_to edge is checked under
 * one transaction-level lock. Intake and create_node link a new node, which can close no cycle
 * and has nothing below it, so they skip it.
 */
async function checkBelongsTo(tx: GraphTx, sourceId: string, targetId: string): Promise<void> {
  await tx.lockBelongsTo();
  if (await tx.reaches(targetId, sourceId)) throw new AppError('conflict', { detail: 'belongs_to ville gi en sirkel' });
  const depth = (await tx.chainAbove(targetId, MAX_BELONGS_TO_DEPTH)) + 1 + (await tx.chainBelow(sourceId, MAX_BELONGS_TO_DEPTH));
  if (depth > MAX_BELONGS_TO_DEPTH) {
    throw new AppError('conflict', { detail: `belongs_to ville gi en kjede på ${depth} ledd; største tillatte er ${MAX_BELONGS_TO_DEPTH}` });
  }
}
