import type { GraphNode, NodeQuery, NodeQueryStore } from '@inntak/graph';
import { nodeForReader } from './read-rules.js';

/**
 * GET /query/nodes' use case: the store's page through the read filter, each node shaped for
 * its reader (nodeForReader: a webhook's token only for its administrators). `next` is the
 * last row's position, for the caller to turn into a cursor.
 */
export async function queryNodes(store: NodeQueryStore, personId: string, query: NodeQuery): Promise<{ nodes: GraphNode[]; next: Awaited<ReturnType<NodeQueryStore['queryNodes']>>['next'] }> {
  const page = await store.queryNodes(personId, query);
  const nodes = page.rows.flatMap((row) => {
    const seen = nodeForReader(row.node, { creator: row.creator, access: row.access });
    return seen ? [seen] : [];
  });
  return { nodes, next: page.next };
}
