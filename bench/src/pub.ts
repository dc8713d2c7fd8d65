/**
 * npm run bench:pub — the published pages under load.
 *
 * A publication with ARTICLES (1,000) published articles, the five newest each with two
 * headline variants under test. The API runs as its own process (apps/api/dist/main.js, as in
 * production); CONNECTIONS keep-alive connections GET /pub/bench for DURATION_S seconds after a
 * warm-up, as 1,000 readers (User-Agents) of one address. Prints req/s, p50/p99 and errors.
 * Goal (issue #15): ≥ 1,000 req/s and p99 ≤ 20 ms.
 *
 * Then intake under page load (issue 22, finding 10): one client POSTs to a webhook for
 * INTAKE_S (5) seconds alone, then again while 4 anonymous clients (each from its own loopback
 * address, 127.0.0.2–5) GET a 600 KB article and /sok as fast as they are answered. Prints
 * intake p50/p99 for both, and what the page clients got (200 / 429).
 *
 * API_MAIN=path/to/apps/api/dist/main.js runs another build (before/after on one database).
 *
 * Last, stops the API with SIGTERM and checks that every impression it counted reached
 * ab_events (5 per reader: one per reader and tested article per window).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { OPERATOR, createCollection, createPerson } from '@inntak/access';
import { openDatabase } from '@inntak/postgres';
import { percentile, scratchDatabase } from './bench-database.js';
import { createWebhook } from '@inntak/intake';
import { createPublication, createVariant } from '@inntak/publishing';
import { storesOn } from '@inntak/postgres/testing';

const DURATION_S = Number(process.env.DURATION_S ?? 10);
const ARTICLES = Number(process.env.ARTICLES ?? 1000);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 8);
const INTAKE_S = Number(process.env.INTAKE_S ?? 5);
const READERS = 1000;
const PAGE_CLIENTS = 4;
const TESTED = 5;
const PORT = 19080 + Math.floor(Math.random() * 1000);
const quiet = { error() {}, warn() {}, info() {}, debug() {} };

const scratch = await scratchDatabase('inntak_bench_pub');
const handle = openDatabase({ connectionString: scratch.url, logger: quiet });
const owner = await createPerson(storesOn(handle.db).graph, { subject: 'bench' });
const pub = await createPublication(storesOn(handle.db).publishing, OPERATOR, { title: 'Benkeposten', slug: 'bench', ownerId: owner.id });
// Published articles in one statement each: the benchmark measures the pages, not the seeding.
await sql`
  with made as (
    insert into nodes (id, node_kind, title, content, visibility, created_by)
    select gen_random_uuid(), 'content', 'Sak nummer ' || i, repeat('Litt brødtekst om saken. ', 40), 'hidden', ${owner.id}::uuid
    from generate_series(1, ${ARTICLES}::int) i
    returning id, title)
  insert into edges (id, source_id, target_id, edge_type, created_by, created_at)
  select gen_random_uuid(), id, ${pub.id}::uuid, 'published_in', ${owner.id}::uuid,
         now() - (substring(title from 'nummer (\\d+)')::int * interval '1 minute')
  from made`.execute(handle.db);
const { rows: newest } = await sql<{ source_id: string }>`
  select source_id from edges where target_id = ${pub.id} and edge_type = 'published_in' order by created_at desc limit ${TESTED}`.execute(handle.db);
for (const { source_id } of newest) {
  for (const title of ['Overskrift A', 'Overskrift B']) {
    await createVariant(storesOn(handle.db).publishing, OPERATOR, { publication_id: pub.id, article_id: source_id, variant_type: 'headline', title });
  }
}

// A long article (≈ 600 KB, as in the issue: short paragraphs full of characters HTML escapes,
// so the page is several times its text) and a webhook for the intake measurement.
const { rows: longRows } = await sql<{ id: string }>`
  insert into nodes (id, node_kind, title, content, visibility, created_by)
  values (gen_random_uuid(), 'content', 'Lang sak', repeat(${`"Sitat" & <b>'ord'</b> "mer" & <i>"enda"</i>

`}, 12000), 'hidden', ${owner.id}::uuid)
  returning id`.execute(handle.db);
const longArticle = longRows[0]!.id;
await sql`insert into edges (id, source_id, target_id, edge_type, created_by) values (gen_random_uuid(), ${longArticle}::uuid, ${pub.id}::uuid, 'published_in', ${owner.id}::uuid)`.execute(
  handle.db,
);
const inbox = await createCollection(storesOn(handle.db).graph, { title: 'Innboks', ownerId: owner.id });
const webhook = await createWebhook(storesOn(handle.db).webhookAdmin, OPERATOR, { collectionId: inbox.id, templateId: null, createdBy: owner.id });

const api = spawn(process.execPath, [...(process.env.API_NODE_OPTIONS ? process.env.API_NODE_OPTIONS.split(' ') : []), process.env.API_MAIN ?? fileURLToPath(new URL('../../apps/api/dist/main.js', import.meta.url))], {
  env: { ...process.env, DATABASE_URL: scratch.url, PORT: String(PORT), LOG_LEVEL: 'error', OIDC_ISSUER: '', AB_CLIENTS_PER_ADDRESS: String(READERS) },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
let sent = 0;
/** Readers (User-Agents) that were served the front page: each counts one impression per tested article. */
const readers = new Set<string>();
const get = () =>
  new Promise<void>((resolve, reject) => {
    const reader = `bench-reader-${sent++ % READERS}`;
    http
      .get({ host: '127.0.0.1', port: PORT, path: '/pub/bench', agent, headers: { 'user-agent': reader } }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) {
            readers.add(reader);
            resolve();
          } else reject(new Error(String(res.statusCode)));
        });
      })
      .on('error', reject);
  });

for (let i = 0; ; i++) {
  try {
    await get();
    break;
  } catch {
    if (i > 100) throw new Error('API did not come up');
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function runLoop(seconds: number) {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          await get();
          latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { latencies, errors, seconds: (performance.now() - started) / 1000 };
}

/** CPU seconds the API process has used (utime + stime from /proc): a figure the machine's load does not inflate. */
function apiCpuSeconds(): number {
  const fields = readFileSync(`/proc/${api.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

await runLoop(2); // warm-up: JIT, the page cache
const load = loadavg()[0]!;
const cpuBefore = apiCpuSeconds();
const run = await runLoop(DURATION_S);
const cpuPerRequestMs = ((apiCpuSeconds() - cpuBefore) * 1000) / Math.max(1, run.latencies.length);

/** One request; resolves with its status. */
function request(options: http.RequestOptions, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: PORT, ...options }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const intakeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const intakeBody = JSON.stringify({ title: 'Målt levering', text: 'Litt innhold.' });
/** Intake p50/p99 of one client POSTing one delivery at a time, until `stop` says so. */
async function intakeLoop(seconds: number): Promise<{ p50: number; p99: number; count: number; errors: number }> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  while (performance.now() < deadline) {
    const t0 = performance.now();
    const status = await request(
      { method: 'POST', path: `/api/webhook/${webhook.token}`, agent: intakeAgent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(intakeBody) } },
      intakeBody,
    );
    if (status === 200) latencies.push(performance.now() - t0);
    else errors++;
  }
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), count: latencies.length, errors };
}

await intakeLoop(1); // warm-up
const intakeAlone = await intakeLoop(INTAKE_S);
// Four anonymous readers, each from its own address: an article of 600 KB and searches, as fast
// as answered. They run on a worker thread, so their own JavaScript does not delay the intake
// client's timings here (they still share the machine's cores with the API and PostgreSQL).
const pageWorker = new Worker(
  `const http = require('node:http');
  const { parentPort, workerData: w } = require('node:worker_threads');
  const statuses = {};
  let loading = true;
  parentPort.on('message', () => (loading = false));
  const get = (path, agent, localAddress) => new Promise((resolve) => {
    http.get({ host: '127.0.0.1', port: w.port, path, agent, localAddress }, (res) => { res.resume(); res.on('end', () => resolve(res.statusCode)); })
      .on('error', () => resolve(0));
  });
  Promise.all(Array.from({ length: w.clients }, async (_, c) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; loading; i++) {
      const path = i % 2 === 0 ? '/pub/bench/artikkel/' + w.article : '/pub/bench/sok?q=' + encodeURIComponent('sak nummer ' + ((i * 7 + c) % w.articles));
      const status = await get(path, agent, '127.0.0.' + (c + 2));
      statuses[status] = (statuses[status] || 0) + 1;
    }
    agent.destroy();
  })).then(() => parentPort.postMessage(statuses));`,
  { eval: true, workerData: { port: PORT, clients: PAGE_CLIENTS, article: longArticle, articles: ARTICLES } },
);
await new Promise((r) => setTimeout(r, 500)); // the page load running before intake is measured
const cpuBeforeLoad = apiCpuSeconds();
const intakeLoaded = await intakeLoop(INTAKE_S);
const loadCpuSeconds = apiCpuSeconds() - cpuBeforeLoad;
pageWorker.postMessage('stop');
const pageStatuses = new Map<number, number>(
  Object.entries((await once(pageWorker, 'message'))[0] as Record<string, number>).map(([status, n]) => [Number(status), n]),
);
await pageWorker.terminate();
const pageRequests = [...pageStatuses.values()].reduce((a, b) => a + b, 0);

api.kill('SIGTERM');
const exitCode = await new Promise((r) => api.once('exit', r));

const { rows } = await sql<{ impressions: string }>`select coalesce(sum(impressions), 0) as impressions from ab_events`.execute(handle.db);
await handle.close();
const rps = run.latencies.length / run.seconds;
console.log(`front page /pub/bench with ${ARTICLES} published articles, ${CONNECTIONS} keep-alive connections, ${DURATION_S} s`);
console.log(`machine: ${cpus().length} cores, load average ${load.toFixed(2)} at start (shared: figures are under that load)`);
console.log(
  `front page  ${rps.toFixed(0).padStart(6)} req/s   p50 ${percentile(run.latencies, 50).toFixed(2)} ms   p99 ${percentile(run.latencies, 99).toFixed(2)} ms   errors ${run.errors}`,
);
console.log(`API process CPU per request ${cpuPerRequestMs.toFixed(3)} ms: ${(1000 / cpuPerRequestMs).toFixed(0)} req/s per free core`);
console.log(`goal ≥ 1000 req/s, p99 ≤ 20 ms: ${rps >= 1000 && percentile(run.latencies, 99) <= 20 ? 'met' : 'not met'}`);
console.log(
  `intake alone              p50 ${intakeAlone.p50.toFixed(2)} ms   p99 ${intakeAlone.p99.toFixed(2)} ms   (${intakeAlone.count} deliveries, ${intakeAlone.errors} errors, ${INTAKE_S} s)`,
);
console.log(
  `intake under page load    p50 ${intakeLoaded.p50.toFixed(2)} ms   p99 ${intakeLoaded.p99.toFixed(2)} ms   (${intakeLoaded.count} deliveries, ${intakeLoaded.errors} errors)`,
);
console.log(
  `page load: ${PAGE_CLIENTS} clients, 600 KB article + /sok: ${(pageRequests / (INTAKE_S + 0.5)).toFixed(0)} req/s; statuses ${[...pageStatuses.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, n]) => `${status}×${n}`)
    .join(', ')}; API CPU ${((loadCpuSeconds * 1000) / Math.max(1, pageRequests + intakeLoaded.count)).toFixed(3)} ms per request under load`,
);
console.log(`impressions in ab_events after SIGTERM (exit ${String(exitCode)}): ${rows[0]!.impressions} of ${readers.size * TESTED} counted (one per reader and tested article)`);
await scratch.drop();
