import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../platform/index.js';

/**
 * The access-propagation step for a `belongs_to` edge: the edge's source gets every access row
 * its target has, each recorded as granted via this edge. Idempotent, so a queued repair may
 * run it again; a stronger existing row is kept. The SQL is the function
 * inntak_propagate_belongs_to (db/migrations/006), which intake also calls.
 */
export async function propagateBelongsTo(db: Kysely<Database>, edgeId: string): Promise<number> {
  const result = await sql<{ written: number }>`select inntak_propagate_belongs_to(${edgeId}::uuid) as written`.execute(db);
  return result.rows[0]!.written;
}

export interface AccessPair {
  subject_id: string;
  object_id: string;
}

/**
 * belongs_to edges form no cycle (create_edge checks under a lock), so propagation ends after
 * at most the graph's depth in levels. New chains are limited to MAX_BELONGS_TO_DEPTH
 * (graph-writes.ts), but chains made before that limit may be deeper and must still settle:
 * this guard is only against a cycle made by hand in SQL.
 */
const CYCLE_GUARD = 10_000;

/**
 * Recomputes the access rows of the given (subject, object) pairs from the edges that grant
 * them, then follows belongs_to edges down to the nodes that inherit from each object, level by
 * level, until nothing changes. A row is the strongest of its grants (ties keep the oldest
 * edge); a pair with no grant left loses its row. The pairs given are the ones whose grants just
 * changed, so their inheritors are always revisited, even when their own row had already been
 * removed by the cascade on via_edge.
 *
 * Runs inside the caller's transaction, so a write and its propagation commit together.
 */
export async function refreshAccess(trx: Transaction<Database>, pairs: readonly AccessPair[]): Promise<void> {
  if (pairs.length === 0) return;
  await lockObjects(trx, pairs);
  await recompute(trx, pairs, 'these');
  let parents: readonly AccessPair[] = pairs;
  for (let depth = 0; parents.length > 0; depth++) {
    if (depth >= CYCLE_GUARD) throw new Error('access propagation did not settle: belongs_to cycle?');
    parents = await recompute(trx, parents, 'inheritors');
  }
}

/**
 * Serialises a change of an object's rows with intake into it. Intake's belongs_to insert holds
 * FOR KEY SHARE on the collection row (the foreign-key check) until it commits; FOR UPDATE
 * waits for it, so the recompute below sees the new node, and a later intake waits for this
 * transaction and copies the rows as they are after it. Intake itself takes no extra lock.
 */
async function lockObjects(trx: Transaction<Database>, pairs: readonly AccessPair[]): Promise<void> {
  const ids = [...new Set(pairs.map((p) => p.object_id))].sort();
  await sql`select id from nodes where id = any(${ids}::uuid[]) order by id for update`.execute(trx);
}

/** The rows an edge granted: the pairs to refresh once it is gone. */
export async function pairsGrantedVia(trx: Transaction<Database>, edgeIds: readonly string[]): Promise<AccessPair[]> {
  if (edgeIds.length === 0) return [];
  return trx.selectFrom('node_access').select(['subject_id', 'object_id']).where('via_edge', 'in', edgeIds).execute();
}

/** Every subject with a row on `objectId`, paired with `inheritorId` (a new belongs_to source). */
export async function pairsInheritedFrom(trx: Transaction<Database>, objectId: string, inheritorId: string): Promise<AccessPair[]> {
  const rows = await trx.selectFrom('node_access').select('subject_id').where('object_id', '=', objectId).execute();
  return rows.map((r) => ({ subject_id: r.subject_id, object_id: inheritorId }));
}

/**
 * Recomputes `these` pairs, or the pairs (subject, X) for every X that belongs_to one of the
 * given pairs' objects (`inheritors`), in one statement. Returns the changed pairs whose object
 * has inheritors of its own: the next level to visit (content nodes have none, so a level of
 * 100 000 of them returns nothing).
 */
async function recompute(trx: Transaction<Database>, given: readonly AccessPair[], which: 'these' | 'inheritors'): Promise<AccessPair[]> {
  const subjects = given.map((p) => p.subject_id);
  const objects = given.map((p) => p.object_id);
  const pairs =
    which === 'these'
      ? sql`select distinct subject_id, object_id from unnest(${subjects}::uuid[], ${objects}::uuid[]) as g (subject_id, object_id)`
      : sql`select distinct g.subject_id, e.source_id as object_id
              from unnest(${subjects}::uuid[], ${objects}::uuid[]) as g (subject_id, object_id)
              join edges e on e.target_id = g.object_id and e.edge_type = 'belongs_to'`;
  const { rows } = await sql<AccessPair>`
    with pairs as (${pairs}), best as (
      -- Per pair, by index lookups only: the strongest grant, oldest edge first on a tie.
      select p.subject_id, p.object_id, g.access, g.via_edge
        from pairs p
        left join lateral (
          select c.access, c.via_edge from (
            select access_granted_by(e.edge_type, e.metadata) as access, e.id as via_edge, e.created_at
              from edges e
             where e.source_id = p.subject_id and e.target_id = p.object_id
            union all
            -- A scalar subquery keeps this a primary-key lookup; as a join, the planner may
            -- scan all of the subject's rows for every pair.
            -- The edge's cap (metadata.max_access) lowers what it passes down.
            select (select inntak_inherited_access(a.access, e.metadata) from node_access a
                     where a.subject_id = p.subject_id and a.object_id = e.target_id), e.id, e.created_at
              from edges e
             where e.source_id = p.object_id and e.edge_type = 'belongs_to' and p.subject_id <> p.object_id
          ) c
           where c.access is not null
           order by c.access desc, c.created_at, c.via_edge
           limit 1
        ) g on true
    ), removed as (
      delete from node_access n using best b
       where b.access is null and n.subject_id = b.subject_id and n.object_id = b.object_id
      returning n.subject_id, n.object_id
    ), upserted as (
      insert into node_access (subject_id, object_id, access, via_edge)
      select subject_id, object_id, access, via_edge from best where access is not null
      on conflict (subject_id, object_id) do update set access = excluded.access, via_edge = excluded.via_edge
       where node_access.access <> excluded.access or node_access.via_edge is distinct from excluded.via_edge
      returning subject_id, object_id
    ), changed as (
      select subject_id, object_id from removed union select subject_id, object_id from upserted
    )
    select c.subject_id, c.object_id from changed c
     where exists (select 1 from edges e where e.target_id = c.object_id and e.edge_type = 'belongs_to')`.execute(trx);
  return rows;
}
