import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import { AppError } from '@inntak/core';
import { MAX_EDGE_PAGE, type NodeQueryStore } from '@inntak/graph';
import type { RouteRegistry } from '../route-registry.js';
import { Id, JsonObject, Timestamp, Visibility } from '../schemas.js';

const Node = z.object({
  id: Id,
  node_kind: z.string(),
  title: z.string().nullable(),
  content: z.string().nullable(),
  visibility: Visibility,
  metadata: JsonObject,
  created_by: Id.nullable(),
  created_at: Timestamp,
});

const Edge = z.object({
  id: Id,
  source_id: Id,
  target_id: Id,
  edge_type: z.string(),
  metadata: JsonObject,
  system: z.boolean(),
  created_by: Id.nullable(),
  created_at: Timestamp,
});

/**
 * GET /nodes/{id}: one node and a page of its edges, through the read filter like every read
 * path. `auth` is expected to cap the caller's concurrent reads (read-limits.ts).
 */
export function installNodeRead(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: { nodeQueries: NodeQueryStore }): void {
  registry.route(
    app,
    {
      method: 'get',
      path: '/nodes/{id}',
      summary: 'A node as the caller may see it, with the edges the caller may see',
      description:
        'A hidden node the caller has no access to answers 404; a discoverable one comes as a summary. Edges come in pages ' +
        '(id order): pass next_edges_cursor back as edges_cursor; a page may be short and still have a next one.',
      tags: ['graph'],
      auth: 'jwt',
      params: z.object({ id: Id }),
      query: z.strictObject({
        edges_limit: z.coerce.number().int().min(1).max(MAX_EDGE_PAGE).default(100),
        edges_cursor: Id.optional(),
      }),
      response: { status: 200, schema: z.object({ node: Node, edges: z.array(Edge), next_edges_cursor: Id.nullable() }) },
      errors: [400, 401, 404, 429],
    },
    auth,
    async ({ params, query, caller }) => {
      const found = await deps.nodeQueries.readNode(caller.personId, params.id, { limit: query.edges_limit, after: query.edges_cursor?.toLowerCase() });
      if (!found) throw new AppError('not_found', { detail: 'id' });
      const iso = <T extends { created_at: Date }>(row: T) => ({ ...row, created_at: row.created_at.toISOString() });
      return { node: iso(found.node), edges: found.edges.map(iso), next_edges_cursor: found.nextEdges };
    },
  );
}
