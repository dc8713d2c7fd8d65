import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import { AppError } from '@inntak/core';
import { type Db } from '@inntak/postgres';
import { readNode } from '@inntak/postgres/graph';
import type { RouteRegistry } from './route-registry.js';
import { Id, JsonObject, Timestamp, Visibility } from './schemas.js';

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

/** GET /nodes/{id}: one node and its edges, through the read filter like every read path. */
export function installNodeRead(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: { db: Db }): void {
  registry.route(
    app,
    {
      method: 'get',
      path: '/nodes/{id}',
      summary: 'A node as the caller may see it, with the edges the caller may see',
      description: 'A hidden node the caller has no access to answers 404; a discoverable one comes as a summary.',
      tags: ['graph'],
      auth: 'jwt',
      params: z.object({ id: Id }),
      response: { status: 200, schema: z.object({ node: Node, edges: z.array(Edge) }) },
      errors: [400, 401, 404],
    },
    auth,
    async ({ params, caller }) => {
      const found = await readNode(deps.db, caller.personId, params.id);
      if (!found) throw new AppError('not_found', { detail: 'id' });
      const iso = <T extends { created_at: Date }>(row: T) => ({ ...row, created_at: row.created_at.toISOString() });
      return { node: iso(found.node), edges: found.edges.map(iso) };
    },
  );
}
