/**
 * bench:outage (issue 37): intake while PostgreSQL is away. On a throw-away PostgreSQL of
 * Debian's binaries, in this process, one run measures
 *   1. normal intake p50/p99 without a spool and then with one (the cost of the spool when the
 *      database answers),
 *   2. requests/s accepted into the spool (SQLite, fsync per group) during a real outage, until
 *      --entries deliveries wait,
 *   3. the time to drain them when the database is back,
 *   4. normal intake p50/p99 again after the drain.
 * Usage: npm run bench:outage [-- --entries 10000 --concurrency 32 --requests 2000]
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { migrate, openDatabase } from '@inntak/postgres';
import { startStoppablePostgres, startTestIssuer } from '@inntak/test-support';
import { startApiServer, type ApiServer } from '@inntak/api/dist/api-server.js';
import { createLogger } from '@inntak/api/dist/logger.js';
import { OidcTokenVerifier } from '@inntak/api/dist/oidc-verifier.js';
import { percentile } from './bench-database.js';
import { createCollection, createPerson, OPERATOR } from '@inntak/access';
import { createWebhook } from '@inntak/intake';
import { storesOn } from '@inntak/postgres/testing';

const { values } = parseArgs({ options: { entries: { type: 'string', default: '10000' }, concurrency: { type: 'string', default: '32' }, requests: { type: 'string', default: '2000' } } });
const ENTRIES = Number(values.entries);
const CONCURRENCY = Number(values.concurrency);
const REQUESTS = Number(values.requests);

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
const body = JSON.stringify({ title: 'push', content: 'x'.repeat(600), n: 1 });

function post(url: string): Promise<{ status: number; ms: number }> {
  const started = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: Number(process.hrtime.bigint() - started) / 1e6 }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** `count` requests, `CONCURRENCY` at a time: their latencies and how many were answered 200. */
async function load(url: string, count: number): Promise<{ ms: number[]; ok: number; seconds: number }> {
  const ms: number[] = [];
  let ok = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        next++;
        const r = await post(url);
        ms.push(r.ms);
        if (r.status === 200) ok++;
      }
    }),
  );
  return { ms: ms.sort((a, b) => a - b), ok, seconds: (performance.now() - started) / 1000 };
}

const logger = createLogger('error');
const pg = await startStoppablePostgres();
await migrate(pg.url);
const database = openDatabase({ connectionString: pg.url, logger, max: 10 });
const issuer = await startTestIssuer();
const owner = await createPerson(storesOn(database.db).graph, { subject: 'bench', name: 'Bench' });
const collection = await createCollection(storesOn(database.db).graph, { title: 'Innboks', ownerId: owner.id });
const webhook = await createWebhook(storesOn(database.db).webhookAdmin, OPERATOR, { collectionId: collection.id, templateId: null, createdBy: owner.id });
const spoolDir = mkdtempSync(path.join(os.tmpdir(), 'inntak-bench-spool-'));

async function api(spool: boolean): Promise<ApiServer> {
  return startApiServer(
    {
      logger,
      database,
      databaseUrl: pg.url,
      baseUrl: 'http://127.0.0.1',
      verifier: new OidcTokenVerifier(issuer.issuer, issuer.audience, logger),
      bodyLimitBytes: 25 * 1024 * 1024,
      slowRequestMs: 10_000,
      realtime: { maxQueue: 1000, initialSync: { collections: 50, nodesPerCollection: 20 } },
      ...(spool ? { intakeSpool: { dir: path.join(spoolDir, 'spool'), url: undefined, replicas: 1, maxBytes: 1024 ** 3 } } : {}),
    },
    0,
    '127.0.0.1',
  );
}

const line = (label: string, r: { ms: number[]; ok: number; seconds: number }) =>
  console.log(`${label}: ${r.ok}/${r.ms.length} 200, ${(r.ms.length / r.seconds).toFixed(0)} req/s, p50 ${percentile(r.ms, 50).toFixed(1)} ms, p99 ${percentile(r.ms, 99).toFixed(1)} ms`);

console.log(`bench:outage — ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}, concurrency ${CONCURRENCY}`);
const plain = await api(false);
await load(`${plain.url}/api/webhook/${webhook.token}`, 200);
line('normal intake, no spool      ', await load(`${plain.url}/api/webhook/${webhook.token}`, REQUESTS));
await plain.close();

const spooled = await api(true);
const url = `${spooled.url}/api/webhook/${webhook.token}`;
await load(url, 200);
line('normal intake, spool (before)', await load(url, REQUESTS));

await pg.stopServer();
const outage = await load(url, ENTRIES);
line('during the outage, to spool  ', outage);

const ready = async () => (await (await fetch(`${spooled.url}/health/ready`)).json()) as { status: string; spool?: { entries: number } };
const drainStarted = performance.now();
await pg.startServer();
while ((await ready()).status !== 'ok') await new Promise((resolve) => setTimeout(resolve, 50));
console.log(`drain of ${outage.ok} spooled deliveries: ${((performance.now() - drainStarted) / 1000).toFixed(2)} s (from the database's start)`);

line('normal intake, spool (after) ', await load(url, REQUESTS));
console.log(`load after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await spooled.close();
agent.destroy();
await database.close();
await issuer.close();
await pg.dispose();
rmSync(spoolDir, { recursive: true, force: true });
