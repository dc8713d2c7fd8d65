import { sql } from 'kysely';
import { nodeForReader, type AccessLevel } from '@inntak/access';
import type { EdgePage, GraphEdge, NodeRead } from '@inntak/graph';
import type { Db } from '../platform/index.js';
import { accessLevelOf, edgeVisibleTo, nodeVisibleTo } from './read-filter.js';

/**
 * Index entries examined per edge wanted. A node may have far more edges than the caller may
 * see (a readable collection of hidden nodes): the scan stops after this many per page and the
 * page ends early, with a cursor, rather than walking every edge.
 */
const SCAN_FACTOR = 5;

/**
 * One node as the caller may see it (nodeForReader: summary for discoverable, token redacted for
 * non-administrators) with a page of the edges the caller may see on it (edgeVisibleTo), or
 * undefined when the read filter hides the node. `nextEdges` is the id to continue after, or
 * null when no edge is left; a page may hold fewer than `limit` edges and still have one.
 */
export async function readNode(
  db: Db,
  callerId: string,
  nodeId: string,
  page: EdgePage = { limit: 100 },
): Promise<NodeRead | undefined> {
  const row = await db
    .selectFrom('nodes as n')
    .selectAll('n')
    .select(accessLevelOf(callerId, 'n').as('access'))
    .where('n.id', '=', nodeId)
    .where(nodeVisibleTo(callerId, 'n'))
    .executeTakeFirst();
  if (!row) return undefined;
  const { access, ...node } = row;
  const seen = nodeForReader(node, { creator: node.created_by === callerId, access: access as AccessLevel | null });
  if (!seen) return undefined;
  const scan = page.limit * SCAN_FACTOR;
  const after = page.after ? sql`and e.id > ${page.after}::uuid` : sql``;
  // Each side read from its (endpoint, id) index in id order and cut at `scan`: the cost
  // follows the page, not the node's edge count.
  const { rows } = await sql<GraphEdge & { visible: boolean }>`
    select e.*, ${edgeVisibleTo(callerId, 'e')} as visible
      from ((select * from edges e where e.source_id = ${nodeId} ${after} order by e.id limit ${scan})
            union all
            (select * from edges e where e.target_id = ${nodeId} and e.source_id <> ${nodeId} ${after} order by e.id limit ${scan})
            order by id limit ${scan}) e
     order by e.id`.execute(db);
  const edges: GraphEdge[] = [];
  let lastExamined: string | null = null;
  let index = 0;
  for (; index < rows.length && edges.length < page.limit; index++) {
    const { visible, ...edge } = rows[index]!;
    lastExamined = edge.id;
    if (visible) edges.push(edge);
  }
  const more = index < rows.length || rows.length === scan;
  return { node: seen, edges, nextEdges: more ? lastExamined : null };
}
