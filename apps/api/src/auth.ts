import type { RequestHandler, Response } from 'express';
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
