import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import { callerOf } from '../auth.js';
import type { RouteRegistry } from '../route-registry.js';

/** GET /me: the caller's person node id. */
export function installMe(app: Express, registry: RouteRegistry, auth: RequestHandler): void {
  registry.describe({
    method: 'get',
    path: '/me',
    summary: "The caller's person node id",
    auth: 'jwt',
    response: { status: 200, schema: z.object({ node_id: z.uuid(), admin: z.boolean() }) },
    errors: [401],
  });
  app.get('/me', auth, (_req, res) => {
    const caller = callerOf(res);
    res.status(200).json({ node_id: caller.personId, admin: caller.isAdmin });
  });
}
