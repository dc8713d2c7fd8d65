import type { Express } from 'express';
import { z } from 'zod';
import type { RouteRegistry } from '../route-registry.js';
import type { ReplicaStatus } from '../read-routing.js';

/** GET /health: public liveness (always 200). GET /health/ready: 200 only when the database answers. */
export type IssuerStatus = 'ok' | 'unreachable';

export function installHealth(
  app: Express,
  registry: RouteRegistry,
  deps: { databaseReady: () => Promise<void>; issuerStatus?: () => Promise<IssuerStatus>; replicaStatus?: () => ReplicaStatus[] },
): void {
  const ok = z.object({ status: z.literal('ok') });
  registry.describe({ method: 'get', path: '/health', summary: 'Public health check', auth: 'public', response: { status: 200, schema: ok }, errors: [] });
  registry.describe({
    method: 'get',
    path: '/health/ready',
    summary: 'Readiness: 200 when the database answers',
    description:
      'With OIDC_ISSUER set, `issuer` says whether its discovery document answers; an unreachable issuer does not make the API unready (intake needs no token), only every authenticated call fail. ' +
      'With READ_DATABASE_URL set, `read_replicas` lists each replica, whether it is in rotation and why not; a replica out of rotation does not make the API unready (reads go to the primary).',
    auth: 'public',
    response: {
      status: 200,
      schema: ok.extend({
        database: z.literal('ok'),
        issuer: z.enum(['ok', 'unreachable']).optional(),
        read_replicas: z.array(z.object({ name: z.string(), in_rotation: z.boolean(), reason: z.string().optional() })).optional(),
      }),
    },
    errors: [503],
  });
  app.get('/health', (_req, res) => {
    res.status(200).json({ status: 'ok' });
  });
  app.get('/health/ready', async (_req, res) => {
    try {
      await deps.databaseReady();
      const issuer = deps.issuerStatus ? await deps.issuerStatus() : undefined;
      const replicas = deps.replicaStatus?.();
      res.status(200).json({ status: 'ok', database: 'ok', ...(issuer ? { issuer } : {}), ...(replicas ? { read_replicas: replicas } : {}) });
    } catch {
      res.status(503).json({ error: 'Databasen svarer ikke' });
    }
  });
}
