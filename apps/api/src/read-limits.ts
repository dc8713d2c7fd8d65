import type { RequestHandler } from 'express';
import { AppError } from '@inntak/core';
import { callerOf } from './auth.js';

/**
 * A cap on expensive reads (search, listings, a node's edges) running at once for one caller:
 * one person's parallel requests must not take every database connection (docs/security.md).
 * Over the cap answers 429 with Retry-After. Counted per API instance, by person.
 */
export function readsPerCaller(max: number): RequestHandler {
  const running = new Map<string, number>();
  return (_req, res, next) => {
    const id = callerOf(res).personId;
    const count = running.get(id) ?? 0;
    if (count >= max) {
      res.set('Retry-After', '1');
      next(new AppError('too_many_requests'));
      return;
    }
    running.set(id, count + 1);
    let done = false;
    const release = () => {
      if (done) return;
      done = true;
      const left = (running.get(id) ?? 1) - 1;
      if (left <= 0) running.delete(id);
      else running.set(id, left);
    };
    res.on('finish', release);
    res.on('close', release);
    next();
  };
}

/** `auth`, then `then`: one handler for routes that take a single auth middleware. */
export function authThen(auth: RequestHandler, then: RequestHandler): RequestHandler {
  return (req, res, next) =>
    Promise.resolve(auth(req, res, (err?: unknown) => (err ? next(err) : then(req, res, next)))).catch(next);
}
