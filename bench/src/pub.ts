/**
 * npm run bench:pub — the published front page under load.
 *
 * A publication with ARTICLES (1,000) published articles, the five newest each with two
 * headline variants under test. The API runs as its own process (apps/api/dist/main.js, as in
 * production); CONNECTIONS keep-alive connections GET /pub/bench for DURATION_S seconds after a
 * warm-up. Prints req/s, p50/p99 and errors; then stops the API with SIGTERM and checks that
 * every impression it counted reached ab_events (5 per page served).
 * Goal (issue #15): ≥ 1,000 req/s and p99 ≤ 20 ms.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { OPERATOR } from '@inntak/access';
import { openDatabase } from '@inntak/postgres';
import { createPerson } from '@inntak/postgres/graph';
import { createPublication, createVariant } from '@inntak/postgres/publishing';
import { percentile, scratchDatabase } from './bench-database.js';

const DURATION_S = Number(process.env.DURATION_S ?? 10);
const ARTICLES = Number(process.env.ARTICLES ?? 1000);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 8);
const TESTED = 5;
const PORT = 19080 + Math.floor(Math.random() * 1000);
const quiet = { error() {}, warn() {}, info() {}, debug() {} };

const scratch = await scratchDatabase('inntak_bench_pub');
const handle = openDatabase({ connectionString: scratch.url, logger: quiet });
const owner = await createPerson(handle.db, { subject: 'bench' });
const pub = await createPublication(handle.db, { title: 'Benkeposten', slug: 'bench', ownerId: owner.id });
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
    await createVariant(handle.db, OPERATOR, { publication_id: pub.id, article_id: source_id, variant_type: 'headline', title });
  }
}

const api = spawn(process.execPath, [...(process.env.API_NODE_OPTIONS ? process.env.API_NODE_OPTIONS.split(' ') : []), fileURLToPath(new URL('../../apps/api/dist/main.js', import.meta.url))], {
  env: { ...process.env, DATABASE_URL: scratch.url, PORT: String(PORT), LOG_LEVEL: 'error', OIDC_ISSUER: '' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
let served = 0;
const get = () =>
  new Promise<void>((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: PORT, path: '/pub/bench', agent }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) {
            served++;
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
console.log(`impressions in ab_events after SIGTERM (exit ${String(exitCode)}): ${rows[0]!.impressions} of ${served * TESTED} counted`);
await scratch.drop();
