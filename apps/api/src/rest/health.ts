import type { Express } from 'express';
import { z } from 'zod';
import type { RouteRegistry } from '../route-registry.js';

/** GET /health: public liveness (always 200). GET /health/ready: 200 only when the database answers. */
export type IssuerStatus = 'ok' | 'unreachable';

export function installHealth(
  app: Express,
  registry: RouteRegistry,
  deps: { databaseReady: () => Promise<void>; issuerStatus?: () => Promise<IssuerStatus> },
): void {
  const ok = z.object({ status: z.literal('ok') });
  registry.describe({ method: 'get', path: '/health', summary: 'Public health check', auth: 'public', response: { status: 200, schema: ok }, errors: [] });
  registry.describe({
    method: 'get',
    path: '/health/ready',
    summary: 'Readiness: 200 when the database answers',
    description:
      'With OIDC_ISSUER set, `issuer` says whether its discovery document answers; an unreachable issuer does not make the API unready (intake needs no token), only every authenticated call fail.',
    auth: 'public',
    response: { status: 200, schema: ok.extend({ database: z.literal('ok'), issuer: z.enum(['ok', 'unreachable']).optional() }) },
    errors: [503],
  });
  app.get('/health', (_req, res) => {
    res.status(200).json({ status: 'ok' });
  });
  app.get('/health/ready', async (_req, res) => {
    try {
      await deps.databaseReady();
      const issuer = deps.issuerStatus ? await deps.issuerStatus() : undefined;
      res.status(200).json({ status: 'ok', database: 'ok', ...(issuer ? { issuer } : {}) });
    } catch {
      res.status(503).json({ error: 'Databasen svarer ikke' });
    }
  });
}
