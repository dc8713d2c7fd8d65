import type { Express } from 'express';
import type { Logger } from '@inntak/core';

/** Requests slower than `slowMs` are logged at warning with tag `slow_request` (spec: 200 ms). */
export function installRequestLogging(app: Express, deps: { logger: Logger; slowMs: number }): void {
  app.use((req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (durationMs <= deps.slowMs) return;
      const meta = {
        method: req.method,
        path: redactPath(req.originalUrl),
        status: res.statusCode,
        duration_ms: Math.round(durationMs),
      };
      // Only slow requests are logged: a line per request would cost the hot intake path more
      // than the request itself (winston builds each entry before filtering it by level).
      deps.logger.warn('slow request', { tag: 'slow_request', ...meta });
    });
    next();
  });
}

/** Webhook tokens are credentials: they never reach the logs. */
export function redactPath(url: string): string {
  return url.split('?')[0]!.replace(/^\/api\/webhook\/[^/]+/, '/api/webhook/:token');
}
