/**
 * npm run bench:intake — webhook intake throughput and latency against its own ceiling.
 *
 * 1. The API runs as its own process; 8 keep-alive connections POST a ~1.5 KB GitHub push
 *    payload to a forge-push webhook for DURATION_S seconds.
 * 2. The identical SQL (token lookup, then node + edge + access propagation as a
 *    subtransaction, in one transaction) runs directly through pg with 8 clients for the same time: the ceiling.
 * Prints req/s, p50/p99 latency and errors for both, and the ratio.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { uuidv7 } from '@inntak/core';
import { openDatabase } from '@inntak/postgres';
import { createCollection, createPerson } from '@inntak/postgres/graph';
import { createWebhook } from '@inntak/postgres/intake';
import { percentile, scratchDatabase } from './bench-database.js';

const DURATION_S = Number(process.env.DURATION_S ?? 15);
const CONNECTIONS = 8;
const PORT = 18080 + Math.floor(Math.random() * 1000);

function pushPayload(): object {
  const commit = (i: number) => ({
    id: randomUUID().replace(/-/g, '').padEnd(40, '0'),
    message: `Fix the flux capacitor (${i})\n\nLonger explanation of the change.`,
    timestamp: new Date().toISOString(),
    url: `https://github.com/acme/widget/commit/${i}`,
    author: { name: 'Kari Nordmann', email: 'kari@example.com', username: 'kari' },
    added: [],
    removed: [],
    modified: ['src/flux.ts'],
  });
  return {
    ref: 'refs/heads/main',
    before: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
    after: '0000000000000000000000000000000000000001',
    repository: { id: 1, name: 'widget', full_name: 'acme/widget', html_url: 'https://github.com/acme/widget', owner: { login: 'acme' } },
    pusher: { name: 'kari', email: 'kari@example.com' },
    sender: { login: 'kari', id: 2 },
    created: false,
    deleted: false,
    forced: false,
    compare: 'https://github.com/acme/widget/compare/6113728f27ae...000000000001',
    commits: [commit(1), commit(2), commit(3)],
    head_commit: commit(3),
  };
}

interface Figures {
  count: number;
  errors: number;
  latencies: number[];
  seconds: number;
}

async function runLoop(work: () => Promise<void>, concurrency: number, seconds: number): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          await work();
          latencies.push(performance.now() - t0);
        } catch {
          errors++;
        }
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return { count: latencies.length, errors, latencies, seconds: (performance.now() - started) / 1000 };
}

function report(label: string, f: Figures): number {
  const rps = f.count / f.seconds;
  console.log(
    `${label.padEnd(24)} ${rps.toFixed(0).padStart(6)} req/s   p50 ${percentile(f.latencies, 50).toFixed(2)} ms   p99 ${percentile(f.latencies, 99).toFixed(2)} ms   errors ${f.errors}`,
  );
  return rps;
}

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const scratch = await scratchDatabase('inntak_bench_intake');
const handle = openDatabase({ connectionString: scratch.url, logger: quiet });
const owner = await createPerson(handle.db, { subject: 'bench' });
const collection = await createCollection(handle.db, { title: 'Bench', ownerId: owner.id });
const webhook = await createWebhook(handle.db, { collectionId: collection.id, templateId: 'forge-push' });
await handle.close();
const body = JSON.stringify(pushPayload());
console.log(`payload ${body.length} bytes, ${CONNECTIONS} connections, ${DURATION_S} s each`);

// --- HTTP through the real API process -------------------------------------------------------
const api = spawn(process.execPath, [...(process.env.API_NODE_OPTIONS ? process.env.API_NODE_OPTIONS.split(' ') : []), fileURLToPath(new URL('../../apps/api/dist/main.js', import.meta.url))], {
  env: { ...process.env, DATABASE_URL: scratch.url, PORT: String(PORT), LOG_LEVEL: 'error' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
const post = () =>
  new Promise<void>((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: PORT, method: 'POST', path: `/api/webhook/${webhook.token}`, agent, headers: { 'content-type': 'application/json', 'x-github-event': 'push' } },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(String(res.statusCode)))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
for (let i = 0; ; i++) {
  try {
    await post();
    break;
  } catch {
    if (i > 100) throw new Error('API did not come up');
    await new Promise((r) => setTimeout(r, 100));
  }
}
await runLoop(post, CONNECTIONS, 2); // warm-up
const viaHttp = await runLoop(post, CONNECTIONS, DURATION_S);
api.kill('SIGTERM');
await new Promise((r) => api.once('exit', r));

// --- The same SQL directly through pg: the ceiling -------------------------------------------
const pool = new pg.Pool({ connectionString: scratch.url, max: CONNECTIONS });
pool.on('error', () => {}); // dropping the scratch database ends its last idle connections
const metadata = JSON.stringify({ source: 'webhook', webhook_id: webhook.id, payload: JSON.parse(body) });
const direct = async () => {
  const client = await pool.connect();
  try {
    const found = await client.query(
      `select w.id, e.target_id, w.metadata ->> 'template_id' as template_id from nodes w
         join edges e on e.source_id = w.id and e.edge_type = 'belongs_to'
        where w.node_kind = 'webhook' and w.metadata ->> 'token' = $1 order by e.created_at limit 1`,
      [webhook.token],
    );
    const target = found.rows[0] as { id: string; target_id: string };
    const nodeId = uuidv7();
    const edgeId = uuidv7();
    await client.query('begin');
    await client.query(
      `insert into nodes (id, node_kind, title, content, visibility, metadata, created_by) values ($1, 'content', $2, $3, 'hidden', $4, $5)`,
      [nodeId, '[acme/widget] kari pushed 3 commits to main', 'content', metadata, target.id],
    );
    await client.query(
      `insert into edges (id, source_id, target_id, edge_type, metadata, system, created_by) values ($1, $2, $3, 'belongs_to', '{}', true, $4)`,
      [edgeId, nodeId, target.target_id, target.id],
    );
    await client.query('select inntak_try_propagate_belongs_to($1::uuid) as error', [edgeId]);
    await client.query('commit');
  } finally {
    client.release();
  }
};
await runLoop(direct, CONNECTIONS, 2);
const viaSql = await runLoop(direct, CONNECTIONS, DURATION_S);
await pool.end();

const httpRps = report('HTTP intake', viaHttp);
const sqlRps = report('same SQL through pg', viaSql);
console.log(`ratio HTTP / SQL ceiling: ${(httpRps / sqlRps).toFixed(2)}`);
await scratch.drop();
