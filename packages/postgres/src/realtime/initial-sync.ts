import { sql } from 'kysely';
import { nodeForReader, type AccessLevel, type InitialSync, type InitialSyncBounds } from '@inntak/access';
import type { GraphNode } from '@inntak/graph';
import type { Db } from '../platform/index.js';
import { accessLevelOf, edgeVisibleTo, hasAccess, nodeVisibleTo } from '../graph/index.js';

export type { InitialSync, InitialSyncBounds };

type NodeWithAccess = GraphNode & { caller_access: string | null };

/**
 * How far initial_sync looks, so that its cost has a ceiling whatever others put in the graph
 * (docs/security.md):
 * - the newest COLLECTION_SCAN collections of the whole graph, and the caller's newest
 *   COLLECTION_SCAN granting edges, are the candidates for its collection list;
 * - per collection, the newest MEMBER_SCAN_FACTOR × nodesPerCollection belongs_to edges are
 *   read from the (target, type, source) index; members the caller may not see among them
 *   leave the list short rather than sending the scan further down.
 * Anything beyond is for /query/nodes.
 */
const COLLECTION_SCAN = 1000;
const MEMBER_SCAN_FACTOR = 10;

/**
 * What a freshly connected client needs to start: its own node, and the collections it can see
 * — those it has access to first (own and member collections), then others' visible ones, each
 * group newest first — each with its latest members, every row filtered and viewed by the read
 * rules. Newest is by id (UUIDv7: creation order), which the indexes yield without sorting.
 */
export async function loadInitialSync(db: Db, callerId: string, bounds: InitialSyncBounds): Promise<InitialSync> {
  const view = (row: NodeWithAccess): GraphNode | null => {
    const { caller_access, ...node } = row;
    return nodeForReader(node, { creator: node.created_by === callerId, access: caller_access as AccessLevel | null });
  };
  const { person, collections, members } = await db.transaction().execute(async (trx) => {
    // The member query's estimate (50 lateral scans) passes jit_above_cost, and compiling it
    // took longer (~250 ms) than running it (< 1 ms): the sync is many small lookups.
    await sql`select set_config('jit', 'off', true)`.execute(trx);
    const person = await trx
      .selectFrom('nodes as n')
      .selectAll('n')
      .select(accessLevelOf(callerId, 'n').as('caller_access'))
      .where('n.id', '=', callerId)
      .executeTakeFirst();
    const collections = bounds.collections === 0 ? [] : await syncCollections(trx, callerId, bounds.collections);
    const members =
      collections.length === 0 || bounds.nodesPerCollection === 0
        ? []
        : await syncMembers(
            trx,
            callerId,
            collections.map((c) => c.id),
            bounds.nodesPerCollection,
          );
    return { person, collections, members };
  });
  return {
    // The caller's own person node is theirs to see whatever its visibility: it is who they are.
    person: person ? view({ ...person, created_by: callerId }) : null,
    collections: collections.map((collection) => ({
      collection: view(collection)!,
      nodes: members
        .filter((m) => m.collection_id === collection.id)
        .map(({ collection_id: _c, ...node }) => view(node))
        .filter((n): n is GraphNode => n !== null),
    })),
  };
}

async function syncCollections(db: Db, callerId: string, take: number): Promise<NodeWithAccess[]> {
  const { rows } = await sql<NodeWithAccess>`
    with recent as (
      select n.id from nodes n where n.node_kind = 'collection' order by n.id desc limit ${COLLECTION_SCAN}
    ), granted as (
      select g.target_id as id from edges g
       where g.source_id = ${callerId} and access_granted_by(g.edge_type, g.metadata) is not null
       order by g.target_id desc limit ${COLLECTION_SCAN}
    ), candidates as (
      select id from recent union select id from granted
    ), ranked as (
      select n.*, ${accessLevelOf(callerId, 'n')} as caller_access, case when ${hasAccess(callerId, 'n')} then 0 else 1 end as standing
        from candidates c join nodes n on n.id = c.id
       where n.node_kind = 'collection' and ${nodeVisibleTo(callerId, 'n')}
    )
    select id, node_kind, title, content, visibility, metadata, created_by, created_at, caller_access
      from ranked order by standing, id desc limit ${take}`.execute(db);
  return rows;
}

async function syncMembers(db: Db, callerId: string, collectionIds: string[], take: number): Promise<Array<NodeWithAccess & { collection_id: string }>> {
  const { rows } = await sql<NodeWithAccess & { collection_id: string }>`
    select m.* from unnest(${collectionIds}::uuid[]) as c (id)
     cross join lateral (
       select n.*, c.id as collection_id, ${accessLevelOf(callerId, 'n')} as caller_access
         from (select * from edges e where e.target_id = c.id and e.edge_type = 'belongs_to'
                order by e.source_id desc limit ${take * MEMBER_SCAN_FACTOR}) e
         join nodes n on n.id = e.source_id
        where ${nodeVisibleTo(callerId, 'n')} and ${edgeVisibleTo(callerId, 'e')}
        order by n.id desc limit ${take}) m`.execute(db);
  return rows;
}
