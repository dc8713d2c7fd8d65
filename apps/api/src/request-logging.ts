import { randomUUID } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import { withMeta, type Logger } from '@inntak/core';

/**
 * Every request gets an id (the caller's `X-Request-Id` when it is a sane token, else a new
 * UUID), answered in `X-Request-Id` and carried by every log line written for the request, and
 * one access line when it finishes: at `info`, or at `warn` with tag `slow_request` when it
 * took longer than `slowMs` (spec: 200 ms). Lines name the route pattern
 * (`/api/webhook/:token`), never the path: webhook tokens are credentials.
 */
export function installRequestLogging(app: Express, deps: { logger: Logger; slowMs: number }): void {
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(req.headers['x-request-id']);
    res.setHeader('X-Request-Id', requestId);
    const logger = withMeta(deps.logger, { request_id: requestId });
    res.locals.logger = logger;
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      const slow = durationMs > deps.slowMs;
      // winston builds a line before filtering it by level: skip the work when nobody reads it.
      if (!slow && deps.logger.isLevelEnabled?.('info') === false) return;
      const meta = { method: req.method, route: routeOf(req), status: res.statusCode, duration_ms: Math.round(durationMs) };
      if (slow) logger.warn('slow request', { tag: 'slow_request', ...meta });
      else logger.info('request', meta);
    });
    next();
  });
}

/** The request's logger (with its request id); the app's own outside a request. */
export function requestLogger(res: Response, fallback: Logger): Logger {
  return (res.locals.logger as Logger | undefined) ?? fallback;
}

/**
 * The route pattern that answered, e.g. `/api/webhook/:token`; `unmatched` when none did.
 * Redacting by route rather than by rewriting the path holds for any spelling of it (Express
 * matches `/API/Webhook/<token>` too) and for routes added later.
 */
export function routeOf(req: Request): string {
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path === 'string') return `${req.baseUrl}${path}`;
  const named = (req.res?.locals as { routeName?: unknown } | undefined)?.routeName;
  return typeof named === 'string' ? named : 'unmatched';
}

/**
 * Names the route of a request that middleware answers rather than an Express route (the
 * published pages, custom domains, /docs assets): a pattern such as `/pub/:slug/artikkel/:id`,
 * never the path itself, so labels stay few and hold no ids.
 */
export function nameRoute(res: Response, pattern: string): void {
  res.locals.routeName = pattern;
}

/** Ids from a proxy or caller are kept when short and plain, so they cannot forge log content. */
const SANE_REQUEST_ID = /^[\w.:@/+=-]{1,128}$/;

function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && SANE_REQUEST_ID.test(header) ? header : randomUUID();
}
