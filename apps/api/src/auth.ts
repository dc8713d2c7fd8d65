import type { Express, RequestHandler, Response } from 'express';
import { z } from 'zod';
import type { RouteRegistry } from './route-registry.js';
import { authenticate, type Caller, type IdentityDirectory, type TokenVerifier } from '@inntak/access';

export interface AuthDeps {
  verifier: TokenVerifier;
  directory: IdentityDirectory;
}

/** Every non-public route sits behind this: it answers 401 with the spec's texts, or sets the caller. */
export function requireCaller(deps: AuthDeps): RequestHandler {
  return async (req, res, next) => {
    res.locals.caller = await authenticate(req.headers.authorization, deps);
    next();
  };
}

export function callerOf(res: Response): Caller {
  const caller = res.locals.caller as Caller | undefined;
  if (!caller) throw new Error('callerOf used on a route without requireCaller');
  return caller;
}

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
