import { sql, type Transaction } from 'kysely';
import { AppError, uuidv7 } from '@inntak/core';
import {
  belongsToCap,
  deleteAlternatives,
  edgeRule,
  endNeed,
  GRANTING_EDGE_TYPES,
  grantingEdge,
  LAST_OBSERVES_DETAIL,
  levelToGrant,
  requireCreateNode,
  requireEdgeOperation,
  requireObservable,
  type AccessLevel,
  type Actor,
  type EdgeEnds,
  type EndNeed,
} from '@inntak/access';
import { edgeMetadataProblem, jsonProblem, type JsonObject, type Visibility } from '@inntak/graph';
import type { Db } from '../platform/index.js';
import type { Database } from '../platform/index.js';
import { pairsGrantedVia, pairsInheritedFrom, refreshAccess } from './access-propagation.js';
import { requireLevel, requireSubject } from './authorize.js';

/**
 * Graph writes a user (through the API) or an operator (through the CLI) makes. Each checks the
 * actor against the access matrix and commits in one transaction with the access rows it
 * implies (docs/access.md).
 */

type Trx = Transaction<Database>;

/**
 * The deepest chain of belongs_to edges a write may make (docs/access.md): propagation walks
 * it one statement per level, so its length bounds what a grant costs.
 */
export const MAX_BELONGS_TO_DEPTH = 32;

/** Attempts of a graph write that PostgreSQL aborted as a deadlock or serialization failure. */
const WRITE_ATTEMPTS = 5;
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * One graph write's transaction. Concurrent writes to the same nodes may deadlock (each
 * insert's foreign-key check locks both endpoints, propagation then locks the objects); the
 * victim is rolled back whole, so it is simply run again. Still failing after
 * WRITE_ATTEMPTS, it answers 409 (try again), never 500.
 */
export async function graphWrite<T>(db: Db, work: (trx: Trx) => Promise<T>): Promise<T> {
  // Given a transaction, the write joins it and its owner decides about retries (an
  // orchestration's action marks its transaction with the run's depth before it writes).
  if (db.isTransaction) return work(db as Trx);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(work);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      if (typeof code !== 'string' || !RETRYABLE.has(code)) throw err;
      if (attempt >= WRITE_ATTEMPTS) throw new AppError('conflict', { cause: err, detail: 'samtidige endringer; prøv igjen' });
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    }
  }
}

export async function createPerson(
  db: Db,
  input: { subject: string; issuer?: string; name?: string; admin?: boolean },
): Promise<{ id: string }> {
  return db.transaction().execute(async (trx) => {
    const id = uuidv7();
    await trx
      .insertInto('nodes')
      .values({ id, node_kind: 'person', title: input.name ?? null, content: null, metadata: '{}', created_by: null })
      .execute();
    await trx
      .insertInto('auth_identities')
      .values({ issuer: input.issuer ?? '', subject: input.subject, node_id: id })
      .execute();
    if (input.admin) await trx.insertInto('system_admins').values({ node_id: id }).execute();
    return { id };
  });
}

/** A collection with an `owner` edge from its owner, which grants the owner an `owner` row. */
export async function createCollection(
  db: Db,
  input: { title: string; ownerId: string; visibility?: Visibility },
): Promise<{ id: string }> {
  return db.transaction().execute(async (trx) => {
    const id = await insertNode(trx, {
      node_kind: 'collection',
      title: input.title,
      visibility: input.visibility,
      created_by: input.ownerId,
    });
    await insertEdge(trx, { source_id: input.ownerId, target_id: id, edge_type: 'owner', created_by: input.ownerId });
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
  db: Db,
  actor: Actor & { personId: string },
  input: NewNodeInput,
  via: 'api' | 'orchestration' = 'api',
): Promise<{ id: string; edge_ids: string[] }> {
  requireCreateNode(actor, input.node_kind, via);
  checkMetadata(input.metadata, 'metadata');
  return graphWrite(db, async (trx) => {
    if (input.collection_id) await requireEnd(trx, actor, input.collection_id, edgeRule('belongs_to').create.target, 'collection_id');
    const id = await insertNode(trx, { ...input, created_by: actor.personId });
    const edgeIds = [await insertEdge(trx, { source_id: actor.personId, target_id: id, edge_type: 'owner', created_by: actor.personId })];
    if (input.collection_id) {
      edgeIds.push(await insertEdge(trx, { source_id: id, target_id: input.collection_id, edge_type: 'belongs_to', created_by: actor.personId }));
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
export async function createEdge(db: Db, actor: Actor, input: NewEdgeInput): Promise<{ id: string }> {
  requireEdgeOperation(input.edge_type, 'create_edge');
  const problem = edgeMetadataProblem(input.metadata ?? {});
  if (problem) throw new AppError('invalid_input', { detail: `metadata: ${problem}` });
  return graphWrite(db, async (trx) => {
    const source = await requireEnds(trx, actor, input, edgeRule(input.edge_type).create, ['source_id', 'target_id']);
    if (input.edge_type === 'observes') {
      const target = await trx.selectFrom('nodes').select('node_kind').where('id', '=', input.target_id).executeTakeFirstOrThrow();
      requireObservable(target.node_kind, 'target_id');
    }
    let metadata = input.metadata ?? {};
    if (input.edge_type === 'belongs_to') {
      await checkBelongsTo(trx, input.source_id, input.target_id);
      const { max_access: _ignored, ...rest } = metadata;
      metadata = { ...rest, ...belongsToCap(source ?? 'reader') };
    }
    const id = await insertEdge(trx, { ...input, metadata, created_by: actor.personId });
    return { id };
  });
}

/**
 * Deletes an edge; what it granted is recomputed from the grants that remain. The write policy
 * says who may (deleteAlternatives): the edge type's delete rule, or admin (cleanup) on either
 * endpoint so an owner can always clear what others attached to their node. Removing an edge
 * never widens an orchestration: its last `observes` edge stays (409).
 */
export async function deleteEdge(db: Db, actor: Actor, input: { edge_id: string }): Promise<{ id: string }> {
  return graphWrite(db, async (trx) => {
    const edge = await trx.selectFrom('edges').selectAll().where('id', '=', input.edge_id).executeTakeFirst();
    if (!edge) throw new AppError('not_found', { detail: 'edge_id' });
    requireEdgeOperation(edge.edge_type, 'delete_edge');
    await requireAnyOf(trx, actor, edge, deleteAlternatives(edge));
    if (edge.edge_type === 'observes') await keepAnObservesEdge(trx, edge);
    // delete_edge on an owner edge is a revoke: it must leave the object an owner too.
    if (edge.edge_type === 'owner') await keepAnOwner(trx, [edge], edge.source_id, edge.target_id);
    await deleteEdges(trx, [edge.id]);
    return { id: edge.id };
  });
}

/**
 * An orchestration with no `observes` edge matches everything its creator reads
 * (inntak_matching_orchestrations, db/migrations/011): deleting its last one would widen it. The
 * orchestration's row lock serialises two deletions of its last two edges.
 */
async function keepAnObservesEdge(trx: Trx, edge: { id: string; source_id: string }): Promise<void> {
  const { rows } = await sql<{ node_kind: string }>`select node_kind from nodes where id = ${edge.source_id} for update`.execute(trx);
  if (rows[0]?.node_kind !== 'orchestration') return;
  const other = await trx
    .selectFrom('edges')
    .select('id')
    .where('source_id', '=', edge.source_id)
    .where('edge_type', '=', 'observes')
    .where('id', '<>', edge.id)
    .executeTakeFirst();
  if (!other) throw new AppError('conflict', { detail: LAST_OBSERVES_DETAIL });
}

/**
 * Tries each way of deleting the edge in turn; when none lets the actor, the refusal of the first
 * (the edge type's own rule) is the answer. A cleanup way checks only its one endpoint.
 */
async function requireAnyOf(
  trx: Trx,
  actor: Actor,
  edge: { source_id: string; target_id: string },
  ways: ReadonlyArray<EdgeEnds & { cleanup: boolean }>,
): Promise<void> {
  let first: unknown;
  for (const way of ways) {
    try {
      if (!way.cleanup) await requireEnds(trx, actor, edge, way, ['edge_id', 'edge_id']);
      else if (way.source) await requireLevel(trx, actor, edge.source_id, way.source as AccessLevel, 'edge_id');
      else await requireLevel(trx, actor, edge.target_id, way.target as AccessLevel, 'edge_id');
      return;
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 'forbidden' && err.code !== 'not_found')) throw err;
      first ??= err;
    }
  }
  throw first;
}

/**
 * Sets the subject's explicit grant on the object to `access`: the granting edges between them
 * are replaced by one (owner edge for `owner`, member_of otherwise). Granting `owner` takes
 * `owner`; any other level takes `admin`.
 */
export async function grantAccess(
  db: Db,
  actor: Actor,
  input: { subject_id: string; object_id: string; access: AccessLevel },
): Promise<{ edge_id: string }> {
  return graphWrite(db, async (trx) => {
    await lockGrants(trx, actor, input.object_id);
    const current = await explicitGrantEdges(trx, input.subject_id, input.object_id);
    const strongest = current.some((e) => e.edge_type === 'owner') ? 'owner' : input.access;
    await requireLevel(trx, actor, input.object_id, levelToGrant(strongest), 'object_id');
    await requireSubject(trx, input.subject_id, 'subject_id');
    if (input.access !== 'owner') await keepAnOwner(trx, current, input.subject_id, input.object_id);
    const edge = grantingEdge(input.access);
    const edgeId = await insertEdge(trx, {
      source_id: input.subject_id,
      target_id: input.object_id,
      edge_type: edge.edge_type,
      metadata: edge.metadata,
      created_by: actor.personId,
    });
    await deleteEdges(
      trx,
      current.map((e) => e.id),
    );
    return { edge_id: edgeId };
  });
}

/** Removes the subject's explicit grants on the object; inherited rows (belongs_to) stay. */
export async function revokeAccess(db: Db, actor: Actor, input: { subject_id: string; object_id: string }): Promise<{ removed: number }> {
  return graphWrite(db, async (trx) => {
    await lockGrants(trx, actor, input.object_id);
    const current = await explicitGrantEdges(trx, input.subject_id, input.object_id);
    const strongest = current.some((e) => e.edge_type === 'owner') ? 'owner' : 'admin';
    await requireLevel(trx, actor, input.object_id, levelToGrant(strongest), 'object_id');
    await keepAnOwner(trx, current, input.subject_id, input.object_id);
    await deleteEdges(
      trx,
      current.map((e) => e.id),
    );
    return { removed: current.length };
  });
}

/**
 * Inserts a node with defaults the spec gives (hidden, empty metadata). Kept separate from the
 * edge so that callers decide which edges the node gets.
 */
export async function insertNode(
  trx: Trx,
  node: Omit<NewNodeInput, 'collection_id'> & { id?: string; created_by: string | null },
): Promise<string> {
  const id = node.id ?? uuidv7();
  await trx
    .insertInto('nodes')
    .values({
      id,
      node_kind: node.node_kind,
      title: node.title ?? null,
      content: node.content ?? null,
      visibility: node.visibility ?? 'hidden',
      metadata: JSON.stringify(node.metadata ?? {}),
      created_by: node.created_by,
    })
    .execute();
  return id;
}

/** Inserts an edge and propagates what it grants (a granting edge, or belongs_to inheritance). */
export async function insertEdge(
  trx: Trx,
  edge: NewEdgeInput & { created_by: string | null; system?: boolean },
): Promise<string> {
  const id = uuidv7();
  await trx
    .insertInto('edges')
    .values({
      id,
      source_id: edge.source_id,
      target_id: edge.target_id,
      edge_type: edge.edge_type,
      metadata: JSON.stringify(edge.metadata ?? {}),
      system: edge.system ?? false,
      created_by: edge.created_by,
    })
    .execute();
  if ((GRANTING_EDGE_TYPES as readonly string[]).includes(edge.edge_type)) {
    await refreshAccess(trx, [{ subject_id: edge.source_id, object_id: edge.target_id }]);
  } else if (edge.edge_type === 'belongs_to') {
    await refreshAccess(trx, await pairsInheritedFrom(trx, edge.target_id, edge.source_id));
  }
  return id;
}

/** Deletes edges; the rows they granted go with them (cascade) and are recomputed. */
export async function deleteEdges(trx: Trx, edgeIds: readonly string[]): Promise<void> {
  if (edgeIds.length === 0) return;
  const affected = await pairsGrantedVia(trx, edgeIds);
  await trx.deleteFrom('edges').where('id', 'in', edgeIds).execute();
  await refreshAccess(trx, affected);
}

/**
 * Checks both ends of an edge against what the write policy needs on them (`ends`, raised by
 * each node's kind: endNeed). Returns the actor's level on the source (null for a grant's
 * subject, which only has to exist).
 */
async function requireEnds(
  trx: Trx,
  actor: Actor,
  edge: { source_id: string; target_id: string },
  ends: EdgeEnds,
  fields: [source: string, target: string],
): Promise<AccessLevel | null> {
  const source = await requireEnd(trx, actor, edge.source_id, ends.source, fields[0]);
  await requireEnd(trx, actor, edge.target_id, ends.target, fields[1]);
  return source;
}

/**
 * One end of an edge: `exists` only has to exist (a grant's subject: person nodes are hidden,
 * yet an admin names the person they add); null has to be visible to the actor; a level is held
 * (requireLevel). The node's kind may raise the need (an orchestration: admin).
 */
export async function requireEnd(trx: Trx, actor: Actor, nodeId: string, need: EndNeed, field: string): Promise<AccessLevel | null> {
  const node = await trx.selectFrom('nodes').select('node_kind').where('id', '=', nodeId).executeTakeFirst();
  if (!node) throw new AppError('not_found', { detail: field });
  const raised = endNeed(need, node.node_kind);
  if (raised === 'exists') return null;
  return (await requireLevel(trx, actor, nodeId, raised, field)).level;
}

/**
 * grant_access and revoke_access read the subject's grant edges, check the actor, then replace
 * them: two of them on one object must not interleave, or a demotion racing the subject's own
 * re-grant is lost (both read the old edge, both write). The object's row lock serialises them
 * (the same lock propagation takes later), and the checks below it read what the other wrote.
 */
async function lockGrants(trx: Trx, actor: Actor, objectId: string): Promise<void> {
  // Anyone who grants or revokes holds admin at least: checked first, so a caller without it
  // cannot hold the lock (which intake into the object waits for).
  await requireLevel(trx, actor, objectId, 'admin', 'object_id');
  await sql`select id from nodes where id = ${objectId} for update`.execute(trx);
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
 * one transaction-level advisory lock. Intake and create_node link a new node, which can close
 * no cycle and has nothing below it, so they skip it.
 */
async function checkBelongsTo(trx: Trx, sourceId: string, targetId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext('inntak:belongs_to'))`.execute(trx);
  if (await reaches(trx, targetId, sourceId)) throw new AppError('conflict', { detail: 'belongs_to ville gi en sirkel' });
  const depth = (await chainAbove(trx, targetId)) + 1 + (await chainBelow(trx, sourceId));
  if (depth > MAX_BELONGS_TO_DEPTH) {
    throw new AppError('conflict', { detail: `belongs_to ville gi en kjede på ${depth} ledd; største tillatte er ${MAX_BELONGS_TO_DEPTH}` });
  }
}

/** The longest chain of belongs_to edges going up from `id` (0: it belongs to nothing), counted to one past the limit. */
async function chainAbove(trx: Trx, id: string): Promise<number> {
  const { rows } = await sql<{ depth: number }>`
    with recursive up (id, depth) as (
      select ${id}::uuid, 0
      union
      select e.target_id, up.depth + 1 from up join edges e on e.source_id = up.id and e.edge_type = 'belongs_to'
       where up.depth <= ${MAX_BELONGS_TO_DEPTH}
    )
    select max(depth)::int as depth from up`.execute(trx);
  return rows[0]?.depth ?? 0;
}

/**
 * The longest chain of belongs_to edges coming down into `id`. Only nodes that have members of
 * their own are walked (a collection's thousands of content nodes are one level, not thousands
 * of rows to follow); the last level is the +1 when `id` has any member at all.
 */
async function chainBelow(trx: Trx, id: string): Promise<number> {
  const { rows } = await sql<{ depth: number | null; has_members: boolean }>`
    with recursive down (id, depth) as (
      select ${id}::uuid, 0
      union
      select e.source_id, down.depth + 1 from down join edges e on e.target_id = down.id and e.edge_type = 'belongs_to'
       where down.depth <= ${MAX_BELONGS_TO_DEPTH}
         and exists (select 1 from edges f where f.target_id = e.source_id and f.edge_type = 'belongs_to')
    )
    select (select max(depth)::int from down) as depth,
           exists (select 1 from edges where target_id = ${id}::uuid and edge_type = 'belongs_to') as has_members`.execute(trx);
  const row = rows[0]!;
  return row.has_members ? (row.depth ?? 0) + 1 : 0;
}

function explicitGrantEdges(trx: Trx, subjectId: string, objectId: string) {
  return trx
    .selectFrom('edges')
    .select(['id', 'edge_type'])
    .where('source_id', '=', subjectId)
    .where('target_id', '=', objectId)
    .where('edge_type', 'in', GRANTING_EDGE_TYPES)
    .execute();
}

/**
 * Replacing or removing a subject's owner edge must leave the object another owner: a
 * collection nobody owns can no longer be administered by anyone but a system administrator.
 */
async function keepAnOwner(trx: Trx, current: ReadonlyArray<{ edge_type: string }>, subjectId: string, objectId: string): Promise<void> {
  if (!current.some((e) => e.edge_type === 'owner')) return;
  // Locking every owner edge of the object serialises two owners demoting each other at once.
  const owners = await trx.selectFrom('edges').select('source_id').where('target_id', '=', objectId).where('edge_type', '=', 'owner').forUpdate().execute();
  if (!owners.some((o) => o.source_id !== subjectId)) throw new AppError('conflict', { detail: 'den siste eieren kan ikke fjernes' });
}

/** True when `from` reaches `to` along belongs_to edges (a new to → from edge would close a cycle). */
async function reaches(trx: Trx, from: string, to: string): Promise<boolean> {
  if (from === to) return true;
  const { rows } = await sql<{ found: boolean }>`
    with recursive up (id) as (
      select ${from}::uuid
      union
      select e.target_id from edges e join up on e.source_id = up.id where e.edge_type = 'belongs_to'
    )
    select exists (select 1 from up where id = ${to}::uuid) as found`.execute(trx);
  return rows[0]?.found ?? false;
}
