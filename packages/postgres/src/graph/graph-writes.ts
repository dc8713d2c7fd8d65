import { sql, type Transaction } from 'kysely';
import { AppError, uuidv7 } from '@inntak/core';
import { edgeRequirement, GRANTING_EDGE_TYPES, requireCreatableKind, grantingEdge, levelGrantedBy, levelToGrant, type AccessLevel, type Actor } from '@inntak/access';
import type { JsonObject, Visibility } from '@inntak/graph';
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

/** A node owned by its creator (an `owner` edge), optionally belonging to a collection. */
export async function createNode(db: Db, actor: Actor & { personId: string }, input: NewNodeInput): Promise<{ id: string; edge_ids: string[] }> {
  requireCreatableKind(input.node_kind);
  return db.transaction().execute(async (trx) => {
    if (input.collection_id) await requireLevel(trx, actor, input.collection_id, 'member', 'collection_id');
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

/** An ordinary (non-system) edge, checked by edgeRequirement, with its access consequences. */
export async function createEdge(db: Db, actor: Actor, input: NewEdgeInput): Promise<{ id: string }> {
  return db.transaction().execute(async (trx) => {
    await requireEdgeRights(trx, actor, { ...input, metadata: input.metadata ?? {}, system: false }, ['source_id', 'target_id']);
    if (input.edge_type === 'belongs_to' && (await reaches(trx, input.target_id, input.source_id))) {
      throw new AppError('conflict', { detail: 'belongs_to ville gi en sirkel' });
    }
    const id = await insertEdge(trx, { ...input, created_by: actor.personId });
    return { id };
  });
}

/** Deletes an edge; what it granted is recomputed from the grants that remain. */
export async function deleteEdge(db: Db, actor: Actor, input: { edge_id: string }): Promise<{ id: string }> {
  return db.transaction().execute(async (trx) => {
    const edge = await trx.selectFrom('edges').selectAll().where('id', '=', input.edge_id).executeTakeFirst();
    if (!edge) throw new AppError('not_found', { detail: 'edge_id' });
    await requireEdgeRights(trx, actor, edge, ['edge_id', 'edge_id']);
    await deleteEdges(trx, [edge.id]);
    return { id: edge.id };
  });
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
  return db.transaction().execute(async (trx) => {
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
  return db.transaction().execute(async (trx) => {
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
 * The rule for deleting an edge is the rule for creating it (edgeRequirement). The source of a
 * granting edge (the subject) only has to exist. A service-made (system) edge is bookkeeping:
 * removing one takes admin on its target.
 */
async function requireEdgeRights(
  trx: Trx,
  actor: Actor,
  edge: { source_id: string; target_id: string; edge_type: string; metadata: JsonObject; system: boolean },
  fields: [source: string, target: string],
): Promise<void> {
  const required = edgeRequirement(edge.edge_type, edge.metadata);
  if (edge.system) Object.assign(required, { source: null, target: 'admin' });
  if (levelGrantedBy(edge.edge_type, edge.metadata)) await requireSubject(trx, edge.source_id, fields[0]);
  else await requireLevel(trx, actor, edge.source_id, required.source, fields[0]);
  await requireLevel(trx, actor, edge.target_id, required.target, fields[1]);
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
