import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { migrate, openDatabase, type DatabaseHandle } from '@inntak/postgres';
import { describeWithEngine, startStoppablePostgres, startTestIssuer, type StoppablePostgres, type TestIssuer } from '@inntak/test-support';
import { startApiServer, type ApiServer } from './api-server.js';
import { OidcTokenVerifier } from './oidc-verifier.js';
import { captureLogger } from './__tests__/helpers.js';
import { connectStream, type StreamClient } from './__tests__/realtime-helpers.js';
import { createCollection, createPerson, OPERATOR } from '@inntak/access';
import { createWebhook } from '@inntak/intake';
import { storesOn } from '@inntak/postgres/testing';

// Issue 37: a real PostgreSQL is stopped under load; known webhooks keep being answered 200
// from the durable spool, and everything answered is stored once, in order, when it is back.

interface Sent {
  webhook: 'a' | 'b';
  n: number;
  status: number;
  body: { node_id?: string; error?: string };
  retryAfter: string | null;
}

describeWithEngine('postgres', describe, 'intake through a PostgreSQL outage (the durable spool)', () => {
  let pg: StoppablePostgres;
  let database: DatabaseHandle;
  let issuer: TestIssuer;
  let api: ApiServer;
  let stream: StreamClient;
  let spoolDir: string;
  let a: { id: string; token: string };
  let b: { id: string; token: string };
  const { logger, entries: logs } = captureLogger();

  beforeAll(async () => {
    pg = await startStoppablePostgres();
    await migrate(pg.url);
    database = openDatabase({ connectionString: pg.url, logger });
    issuer = await startTestIssuer();
    const owner = await createPerson(storesOn(database.db).graph, { subject: 'owner', name: 'Eier' });
    const collection = await createCollection(storesOn(database.db).graph, { title: 'Innboks', ownerId: owner.id });
    a = await createWebhook(storesOn(database.db).webhookAdmin, OPERATOR, { collectionId: collection.id, templateId: null, createdBy: owner.id });
    b = await createWebhook(storesOn(database.db).webhookAdmin, OPERATOR, { collectionId: collection.id, templateId: null, createdBy: owner.id });
    spoolDir = mkdtempSync(join(tmpdir(), 'inntak-spool-test-'));
    api = await startApiServer(
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
    stream = await connectStream(api.url, await issuer.token('owner'));
  }, 60_000);

  afterAll(async () => {
    stream?.close();
    await api?.close();
    await database?.close();
    await issuer?.close();
    await pg?.dispose();
    rmSync(spoolDir, { recursive: true, force: true });
  });

  async function post(webhook: 'a' | 'b', n: number, token = webhook === 'a' ? a.token : b.token): Promise<Sent> {
    const res = await fetch(`${api.url}/api/webhook/${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: `${webhook} ${n}`, n }) });
    return { webhook, n, status: res.status, body: (await res.json()) as Sent['body'], retryAfter: res.headers.get('retry-after') };
  }

  /** Sends to both webhooks at `perSecond` while `during` runs, in arrival order per webhook. */
  async function underLoad(perSecond: number, during: () => Promise<void>): Promise<Sent[]> {
    const answers: Array<Promise<Sent>> = [];
    let n = 0;
    const timer = setInterval(() => {
      n++;
      answers.push(post(n % 2 === 0 ? 'a' : 'b', n));
    }, 1000 / perSecond);
    try {
      await during();
    } finally {
      clearInterval(timer);
    }
    return Promise.all(answers);
  }

  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function drained(): Promise<void> {
    for (;;) {
      const res = await fetch(`${api.url}/health/ready`);
      const body = (await res.json()) as { status?: string };
      if (res.status === 200 && body.status === 'ok') return;
      await pause(200);
    }
  }

  it('answers every request to a known webhook 200 through a 5 s outage, and stores each once, in order, with access rows and /ws events, once it is back', async () => {
    // Both webhooks are known (looked up once while the database answered).
    expect((await post('a', 0)).status).toBe(200);
    expect((await post('b', 0)).status).toBe(200);
    const sent = await underLoad(30, async () => {
      await pause(500);
      await pg.stopServer();
      await pause(5000);
      await pg.startServer();
      await pause(500);
    });
    expect(sent.filter((s) => s.status !== 200)).toEqual([]);
    await drained();

    const ids = sent.map((s) => s.body.node_id!);
    const stored = await sql<{ id: string; n: number; created_at: Date; webhook: string }>`
      select id, (metadata -> 'payload' ->> 'n')::int as n, created_at, created_by as webhook
        from nodes where id = any(${ids}::uuid[]) order by created_at, id`.execute(database.db);
    expect(stored.rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    const logged = await sql<{ count: string }>`select count(*) from webhook_deliveries where node_id = any(${ids}::uuid[])`.execute(database.db);
    expect(Number(logged.rows[0]!.count)).toBe(ids.length);
    // Per webhook, what arrived later was not written earlier.
    for (const webhook of [a.id, b.id]) {
      const rows = sent.filter((s) => (s.webhook === 'a' ? a.id : b.id) === webhook).map((s) => stored.rows.find((r) => r.id === s.body.node_id)!);
      for (let i = 1; i < rows.length; i++) expect(rows[i]!.created_at.getTime()).toBeGreaterThanOrEqual(rows[i - 1]!.created_at.getTime());
    }
    const access = await sql<{ count: string }>`select count(distinct object_id) from node_access where object_id = any(${ids}::uuid[])`.execute(database.db);
    expect(Number(access.rows[0]!.count)).toBe(ids.length);
    await stream.next((e) => e.row?.id === ids.at(-1), 20_000, 'the last spooled node on /ws');

    const messages = logs.map((l) => l.message);
    expect(messages.filter((m) => m.startsWith('intake database unreachable; spooling')).length).toBe(1);
    expect(messages.filter((m) => m.startsWith('intake spool drained')).length).toBe(1);
  }, 60_000);

  it('refuses, during an outage, a token rotated before it and an unknown token with 500 Databasefeil and Retry-After, and says it is degraded on /health/ready and /metrics', async () => {
    const oldToken = b.token;
    expect((await post('b', 1000)).status).toBe(200);
    const rotated = '5b0e6f1c-3d1e-4a8a-9f3e-0c6d2b7a9e11';
    await sql`update nodes set metadata = metadata || jsonb_build_object('token', ${rotated}::text) where id = ${b.id}`.execute(database.db);
    // The change stream tells the cache; the next lookup of the old token (database up) finds nothing.
    expect((await post('b', 1001, oldToken)).status).toBe(404);
    await pg.stopServer();
    try {
      for (const token of [oldToken, '00000000-0000-4000-8000-0000000000ff']) {
        const res = await post('b', 1002, token);
        expect([res.status, res.body, res.retryAfter]).toEqual([500, { error: 'Databasefeil' }, '5']);
      }
      expect((await post('a', 1003)).status).toBe(200);
      const ready = await fetch(`${api.url}/health/ready`);
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'degraded', database: 'unreachable', spool: { entries: 1, oldest_age_seconds: expect.any(Number) } }]);
      const metrics = await fetch(`${api.url}/metrics?format=json`, { headers: { authorization: 'Bearer metrics-token-for-the-outage-test' } });
      expect(((await metrics.json()) as { spool: unknown }).spool).toEqual({ entries: 1, bytes: expect.any(Number), oldest_age_seconds: expect.any(Number), replays_done: expect.any(Number), degraded: true });
    } finally {
      await pg.startServer();
    }
    await drained();
  }, 60_000);
});
