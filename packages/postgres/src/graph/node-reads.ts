import { sql } from 'kysely';
import { nodeForReader, type AccessLevel } from '@inntak/access';
import type { GraphEdge, GraphNode } from '@inntak/graph';
import type { Db } from '../platform/index.js';
import { accessLevelOf, edgeVisibleTo, nodeVisibleTo } from './read-filter.js';

/**
 * One node as the caller may see it (nodeForReader: summary for discoverable, token redacted for
 * non-administrators) with the edges the caller may see on it, or undefined when the read filter
 * hides the node.
 */
export async function readNode(db: Db, callerId: string, nodeId: string): Promise<{ node: GraphNode; edges: GraphEdge[] } | undefined> {
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
  const edges = await db
    .selectFrom('edges as e')
    .selectAll('e')
    .where((eb) => eb.or([eb('e.source_id', '=', nodeId), eb('e.target_id', '=', nodeId)]))
    .where(edgeVisibleTo(callerId, 'e'))
    .orderBy(sql`e.created_at`)
    .orderBy('e.id')
    .execute();
  return { node: seen, edges };
}
