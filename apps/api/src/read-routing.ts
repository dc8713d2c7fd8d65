import { createHash } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '@inntak/core';
import type { Logger, SharedKey } from '@inntak/core';
import { positionCookie, positionOfCookie } from './read-position-cookie.js';

/** What the routing needs of the read replicas (ReadReplicas in @inntak/postgres). */
export interface ReadRouter {
  withCaller<T>(key: string | undefined, fn: () => T, after?: string, person?: () => string | undefined): T;
  beginWrite(key: string): void;
  endWrite(key: string, person?: string): Promise<void>;
  position(): Promise<string>;
  /** Every replica, in rotation or why not (/health/ready, /metrics). */
  status(): ReplicaStatus[];
}

export interface ReplicaStatus {
  name: string;
  in_rotation: boolean;
  reason?: string;
}

/** A write's answer: the primary's WAL position once it committed. */
export const WRITE_POSITION_HEADER = 'Inntak-Write-Position';
/** A read's request: answer from a database that has replayed at least this position. */
export const READ_AFTER_HEADER = 'Inntak-Read-After';
/** A WAL position as PostgreSQL prints it (`16/B374D848`): two hexadecimal 32-bit halves. */
const WAL_POSITION = /^[0-9A-F]{1,8}\/[0-9A-F]{1,8}$/i;

/**
 * Read-your-writes across replicas (READ_DATABASE_URL, docs/scaling.md). Within one API
 * process: every request with credentials runs as its caller (a hash of the Authorization
 * header, so no token is kept), and a request that may write (anything but GET and HEAD) marks
 * the caller as writing until it has ended and the primary's WAL position after it is known.
 * The caller's reads meanwhile go to the primary, and afterwards to a replica only once it has
 * replayed that position. Across processes (a load balancer without stickiness): a write's
 * answer carries that position in `Inntak-Write-Position`, and a read that sends it back in
 * `Inntak-Read-After` is answered from a replica that has replayed it, or from the primary.
 * With `cookieKey` (issue 38) the answer also sets that position in a short-lived signed cookie,
 * so a browser's next reads on any process wait for it without the client doing anything; an
 * `Inntak-Read-After` header wins over the cookie.
 */
export function readRouting(router: ReadRouter, logger: Logger, cookieKey?: SharedKey): RequestHandler {
  return (req, res, next) => {
    const asked = req.headers[READ_AFTER_HEADER.toLowerCase()];
    if (asked !== undefined && (typeof asked !== 'string' || !WAL_POSITION.test(asked))) {
      return next(new AppError('invalid_input', { detail: `${READ_AFTER_HEADER}: en WAL-posisjon slik ${WRITE_POSITION_HEADER} gir den, f.eks. 16/B374D848` }));
    }
    const route = (after: string | undefined) => routeRequest(router, logger, cookieKey, req, res, next, after);
    if (asked !== undefined || !cookieKey) return route(asked?.toUpperCase());
    // A cookie that does not verify (expired, forged, under a key rotated away) is ignored.
    positionOfCookie(cookieKey, req).then(route, () => route(undefined));
  };
}

function routeRequest(router: ReadRouter, logger: Logger, cookieKey: SharedKey | undefined, req: Request, res: Response, next: () => void, after: string | undefined): void {
  const authorization = req.headers.authorization;
  if (!authorization) return router.withCaller(undefined, next, after);
  const key = createHash('sha256').update(authorization).digest('base64url');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    router.beginWrite(key);
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      router.endWrite(key, personOf(res)).catch((err: unknown) => logger.warn('could not read the primary WAL position after a write', { error: (err as Error).message }));
    };
    res.once('finish', end);
    res.once('close', end);
    answerWithPosition(router, res, logger, cookieKey);
  }
  router.withCaller(key, next, after, () => personOf(res));
}

/** The person auth.ts found for the request (res.locals.caller), once it has run. */
function personOf(res: Response): string | undefined {
  return (res.locals.caller as { personId?: string } | undefined)?.personId;
}

/**
 * A handler answers after its transaction committed, so the primary's position when the answer
 * to an authenticated person's write (auth.ts set `res.locals.caller`) is sent includes the write: read it then and send it as a header (one round trip to the
 * primary per write, only where replicas are configured). Answers not sent through `res.send`
 * (streams) go without it.
 */
function answerWithPosition(router: ReadRouter, res: Response, logger: Logger, cookieKey: SharedKey | undefined): void {
  const send = res.send.bind(res);
  res.send = ((body?: unknown) => {
    res.send = send;
    // Only a person's own write that succeeded has a position worth reading back: the position
    // measures everyone's writes, so a refused request, a webhook sender (whatever Authorization
    // header it adds) or anyone else who did not authenticate learns nothing (issue 35, finding 6).
    if (res.headersSent || res.statusCode < 200 || res.statusCode >= 300 || res.locals.caller === undefined) return send(body);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer from the primary in ${POSITION_WAIT_MS} ms`)), POSITION_WAIT_MS);
    });
    Promise.race([router.position(), late])
      .then(async (lsn) => {
        res.setHeader(WRITE_POSITION_HEADER, lsn);
        if (cookieKey) res.append('Set-Cookie', await positionCookie(cookieKey, lsn, res.req.secure));
      })
      .catch((err: unknown) => logger.warn('answering a write without its WAL position', { error: (err as Error).message }))
      .finally(() => {
        clearTimeout(timer);
        send(body);
      });
    return res;
  }) as Response['send'];
}

/** How long a write's answer waits for the primary's position before it goes without it. */
const POSITION_WAIT_MS = 100;
