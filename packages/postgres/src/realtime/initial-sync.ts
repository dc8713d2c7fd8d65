import { sql } from 'kysely';
import { nodeForReader, type AccessLevel } from '@inntak/access';
import type { GraphNode } from '@inntak/graph';
import type { Db } from '../platform/index.js';
import { accessLevelOf, edgeVisibleTo, nodeVisibleTo } from '../graph/index.js';

export interface InitialSyncBounds {
  /** The most recently created collections the caller may see. */
  collections: number;
  /** The latest nodes shown per collection. */
  nodesPerCollection: number;
}

export interface InitialSync {
  person: GraphNode | null;
  collections: Array<{ collection: GraphNode; nodes: GraphNode[] }>;
}

type NodeWithAccess = GraphNode & { caller_access: string | null };

/**
 * What a freshly connected client needs to start: its own node, and the collections it can see,
 * each with its latest members — every row filtered and viewed by the read rules.
 */
export async function loadInitialSync(db: Db, callerId: string, bounds: InitialSyncBounds): Promise<InitialSync> {
  const view = (row: NodeWithAccess): GraphNode | null => {
    const { caller_access, ...node } = row;
    return nodeForReader(node, { creator: node.created_by === callerId, access: caller_access as AccessLevel | null });
  };
  const [person, collections] = await Promise.all([
    db
      .selectFrom('nodes as n')
      .selectAll('n')
      .select(accessLevelOf(callerId, 'n').as('caller_access'))
      .where('n.id', '=', callerId)
      .executeTakeFirst(),
    db
      .selectFrom('nodes as n')
      .selectAll('n')
      .select(accessLevelOf(callerId, 'n').as('caller_access'))
      .where('n.node_kind', '=', 'collection')
      .where(nodeVisibleTo(callerId, 'n'))
      .orderBy('n.created_at', 'desc')
      .limit(bounds.collections)
      .execute(),
  ]);
  const members =
    collections.length === 0
      ? []
      : await db
          .selectFrom('nodes as c')
          .innerJoinLateral(
            (eb) =>
              eb
                .selectFrom('edges as e')
                .innerJoin('nodes as n', 'n.id', 'e.source_id')
                .selectAll('n')
                .select(['e.target_id as collection_id', accessLevelOf(callerId, 'n').as('caller_access')])
                .whereRef('e.target_id', '=', sql.ref('c.id'))
                .where('e.edge_type', '=', 'belongs_to')
                .where(nodeVisibleTo(callerId, 'n'))
                .where(edgeVisibleTo(callerId, 'e'))
                .orderBy('n.created_at', 'desc')
                .limit(bounds.nodesPerCollection)
                .as('m'),
            (join) => join.onTrue(),
          )
          .where('c.id', 'in', collections.map((c) => c.id))
          .selectAll('m')
          .execute();
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
