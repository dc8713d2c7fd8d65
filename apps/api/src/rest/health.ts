import type { Express } from 'express';
import { z } from 'zod';
import type { SpoolSnapshot } from '@inntak/intake';
import type { RouteRegistry } from '../route-registry.js';
import type { ReplicaStatus } from '../read-routing.js';

/** GET /health: public liveness (always 200). GET /health/ready: 200 only when the database answers. */
export type IssuerStatus = 'ok' | 'unreachable';

export function installHealth(
  app: Express,
  registry: RouteRegistry,
  deps: { databaseReady: () => Promise<void>; issuerStatus?: () => Promise<IssuerStatus>; replicaStatus?: () => ReplicaStatus[]; spool?: () => Promise<SpoolSnapshot> },
): void {
  const ok = z.object({ status: z.literal('ok') });
  registry.describe({ method: 'get', path: '/health', summary: 'Public health check', auth: 'public', response: { status: 200, schema: ok }, errors: [] });
  registry.describe({
    method: 'get',
    path: '/health/ready',
    summary: 'Readiness: 200 when the database answers',
    description:
      'With the intake spool (docs/deliveries.md#outages), `status` is `degraded` while deliveries wait in it, and the database being away answers 200 `degraded` (webhooks are still accepted) instead of 503. With OIDC_ISSUER set, `issuer` says whether its discovery document answers; an unreachable issuer does not make the API unready (intake needs no token), only every authenticated call fail. ' +
      'With READ_DATABASE_URL set, `read_replicas` lists each replica, whether it is in rotation and why not; a replica out of rotation does not make the API unready (reads go to the primary).',
    auth: 'public',
    response: {
      status: 200,
      schema: z.object({
        status: z.enum(['ok', 'degraded']),
        database: z.enum(['ok', 'unreachable']),
        issuer: z.enum(['ok', 'unreachable']).optional(),
        spool: z.object({ entries: z.number(), oldest_age_seconds: z.number() }).optional(),
        read_replicas: z.array(z.object({ name: z.string(), in_rotation: z.boolean(), reason: z.string().optional() })).optional(),
      }),
    },
    errors: [503],
  });
  app.get('/health', (_req, res) => {
    res.status(200).json({ status: 'ok' });
  });
  app.get('/health/ready', async (_req, res) => {
    const database = await deps.databaseReady().then(
      () => 'ok' as const,
      () => 'unreachable' as const,
    );
    const spool = deps.spool ? await deps.spool() : undefined;
    if (database === 'unreachable' && !spool) {
      res.status(503).json({ error: 'Databasen svarer ikke' });
      return;
    }
    const issuer = deps.issuerStatus ? await deps.issuerStatus() : undefined;
    const degraded = database === 'unreachable' || (spool?.degraded ?? false);
    const replicas = deps.replicaStatus?.();
    res.status(200).json({
      status: degraded ? 'degraded' : 'ok',
      database,
      ...(issuer ? { issuer } : {}),
      ...(replicas ? { read_replicas: replicas } : {}),
      ...(spool && degraded ? { spool: { entries: spool.entries, oldest_age_seconds: spool.oldestAgeSeconds } } : {}),
    });
  });
}
