import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrate, openDatabase, type DatabaseHandle } from '@inntak/postgres';
import { SqliteSpool } from '@inntak/spool';
import { type KeptTarget, createWebhook } from '@inntak/intake';
import { startStoppablePostgres, startTestIssuer, type StoppablePostgres, type TestIssuer } from '@inntak/test-support';
import { startApiServer, type ApiServer } from '../api-server.js';
import { OidcTokenVerifier } from '../oidc-verifier.js';
import { captureLogger, type LogEntry } from './helpers.js';
import { createCollection, createPerson, OPERATOR } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

/**
 * An API over a PostgreSQL the test can really stop (a throw-away cluster from Debian's
 * binaries), with the durable spool on a local SQLite file: the scene of the outage tests
 * (issue 37). The owner (subject `owner`) owns one collection with two webhooks.
 */
export interface OutageScene {
  pg: StoppablePostgres;
  database: DatabaseHandle;
  issuer: TestIssuer;
  api: ApiServer;
  logs: LogEntry[];
  collectionId: string;
  a: { id: string; token: string };
  b: { id: string; token: string };
  /** Posts JSON to a webhook token; the answer's status, body and Retry-After. */
  post(token: string, payload: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** Calls a JSON route as the owner. */
  asOwner(path: string, body: unknown): Promise<{ status: number; body: unknown }>;
  /** Until /health/ready says ok: the database answers and the spool is empty. */
  drained(): Promise<void>;
  /** What the spool's store keeps for a webhook (read from its file, as a restarted process would). */
  keptTargets(webhookId: string): Promise<KeptTarget[]>;
  close(): Promise<void>;
}

export interface Answer {
  status: number;
  body: { node_id?: string; error?: string };
  retryAfter: string | null;
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startOutageScene(): Promise<OutageScene> {
  const { logger, entries: logs } = captureLogger();
  const pg = await startStoppablePostgres();
  await migrate(pg.url);
  const database = openDatabase({ connectionString: pg.url, logger });
  const issuer = await startTestIssuer();
  const owner = await createPerson(storesOn(database.db).graph, { subject: 'owner', name: 'Eier' });
  const collection = await createCollection(storesOn(database.db).graph, { title: 'Innboks', ownerId: owner.id });
  const a = await createWebhook(storesOn(database.db).webhookAdmin, OPERATOR, { collectionId: collection.id, templateId: null, createdBy: owner.id });
  const b = await createWebhook(storesOn(database.db).webhookAdmin, OPERATOR, { collectionId: collection.id, templateId: null, createdBy: owner.id });
  const spoolDir = mkdtempSync(join(tmpdir(), 'inntak-spool-test-'));
  const api = await startApiServer(
    {
      logger,
      database,
      databaseUrl: pg.url,
      baseUrl: 'http://127.0.0.1',
      verifier: new OidcTokenVerifier(issuer.issuer, issuer.audience, logger),
      bodyLimitBytes: 1024 * 1024,
      slowRequestMs: 200,
      metricsToken: 'metrics-token-for-the-outage-test',
      realtime: { maxQueue: 100_000, initialSync: { collections: 50, nodesPerCollection: 20 }, listenerBackoffMs: { min: 50, max: 200 } },
      intakeSpool: { dir: join(spoolDir, 'spool'), url: undefined, replicas: 1, maxBytes: 64 * 1024 * 1024 },
    },
    0,
    '127.0.0.1',
  );
  return {
    pg,
    database,
    issuer,
    api,
    logs,
    collectionId: collection.id,
    a,
    b,
    async post(token, payload, headers = {}) {
      const res = await fetch(`${api.url}/api/webhook/${token}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(payload) });
      return { status: res.status, body: (await res.json()) as Answer['body'], retryAfter: res.headers.get('retry-after') };
    },
    async asOwner(path, body) {
      const res = await fetch(`${api.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await issuer.token('owner')}` },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    },
    async drained() {
      for (;;) {
        const res = await fetch(`${api.url}/health/ready`);
        const body = (await res.json()) as { status?: string };
        if (res.status === 200 && body.status === 'ok') return;
        await pause(200);
      }
    },
    async keptTargets(webhookId) {
      const spool = new SqliteSpool({ dir: join(spoolDir, 'spool'), maxBytes: 1 });
      try {
        return (await spool.targets()).filter((kept) => kept.target.webhookId === webhookId);
      } finally {
        await spool.close();
      }
    },
    async close() {
      await api.close();
      await database.close();
      await issuer.close();
      await pg.dispose();
      rmSync(spoolDir, { recursive: true, force: true });
    },
  };
}
