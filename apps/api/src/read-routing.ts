import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '@inntak/core';

/** What the routing needs of the read replicas (ReadReplicas in @inntak/postgres). */
export interface ReadRouter {
  withCaller<T>(key: string, fn: () => T): T;
  beginWrite(key: string): void;
  endWrite(key: string): Promise<void>;
}

/**
 * Read-your-writes across replicas (READ_DATABASE_URL, docs/scaling.md): every request with
 * credentials runs as its caller (a hash of the Authorization header, so no token is kept), and
 * a request that may write (anything but GET and HEAD) marks the caller as writing until it has
 * ended and the primary's WAL position after it is known. The caller's reads meanwhile go to
 * the primary, and afterwards to a replica only once it has replayed that position.
 */
export function readRouting(router: ReadRouter, logger: Logger): RequestHandler {
  return (req, res, next) => {
    const authorization = req.headers.authorization;
    if (!authorization) return next();
    const key = createHash('sha256').update(authorization).digest('base64url');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      router.beginWrite(key);
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        router.endWrite(key).catch((err: unknown) => logger.warn('could not read the primary WAL position after a write', { error: (err as Error).message }));
      };
      res.once('finish', end);
      res.once('close', end);
    }
    router.withCaller(key, next);
  };
}
