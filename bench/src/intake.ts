/**
 * npm run bench:intake [-- --connections 1,8,32 --duration 10 --rounds 1 --api-processes 1 --api A.js,B.js]
 *
 * Webhook intake against its ceiling, for each connection count (docs/performance.md):
 * 1. HTTP: the API runs as its own process(es); keep-alive connections POST a 1.9 KB GitHub push
 *    payload to a forge-push webhook on a collection with 5 access rows. Every 200's node, edge
 *    and 5 access rows are checked afterwards.
 * 2. Ceiling: pgbench (PostgreSQL's C client) runs the intake's exact SQL (its two prepared
 *    statements) with as many clients. Without pgbench the same statements run through Node's
 *    `pg` in this process, labelled as such: a lower ceiling, since it shares this process's CPU.
 * Prints one row per connection count and round, with the ratio HTTP / ceiling. The machine's
 * load average is printed too: on a shared machine only ratios within one run mean much.
 * `--api` names other builds' apps/api/dist/main.js to run against the same database and
 * ceiling, alternating with this one's: before/after in one run (`main.js#INTAKE_GROUP_COMMIT=1`
 * runs a build with settings of its own).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { OPERATOR } from '@inntak/access';
import { uuidv7 } from '@inntak/core';
import { webhookContentNode } from '@inntak/graph';
import { renderPayload } from '@inntak/templates';
import { openDatabase } from '@inntak/postgres';
import { createCollection, createPerson, grantAccess } from '@inntak/postgres/graph';
import { createWebhook, INTAKE_STATEMENTS } from '@inntak/postgres/intake';
import { percentile, scratchDatabase } from './bench-database.js';

const { values: args } = parseArgs({
  options: {
    connections: { type: 'string', default: '1,8,32' },
    duration: { type: 'string', default: process.env.DURATION_S ?? '10' },
    rounds: { type: 'string', default: '1' },
    'api-processes': { type: 'string', default: '1' },
    api: { type: 'string', default: fileURLToPath(new URL('../../apps/api/dist/main.js', import.meta.url)) },
  },
});
const CONNECTIONS = args.connections.split(',').map(Number);
const DURATION_S = Number(args.duration);
const ROUNDS = Number(args.rounds);
const API_PROCESSES = Number(args['api-processes']);
if (CONNECTIONS.some((c) => !Number.isInteger(c) || c < 1) || !(DURATION_S > 0) || !(ROUNDS >= 1) || !(API_PROCESSES >= 1)) {
  console.error('usage: bench:intake [--connections 1,8,32] [--duration SECONDS] [--rounds N] [--api-processes N] [--api MAIN.js,...]');
  process.exit(2);
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;
const BASE_PORT = 18080 + Math.floor(Math.random() * 1000);
const PGBENCH = '/usr/bin/pgbench';
const EVENT_HEADERS = { 'x-github-event': 'push' };

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

/** CPU time (user + system) of each of these processes so far, in ms, if /proc shows it. */
async function cpuMs(pids: number[]): Promise<Map<number, number>> {
  const times = new Map<number, number>();
  for (const pid of pids) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
    if (stat === undefined) continue;
    // Fields after the command (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    times.set(pid, ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS);
  }
  return times;
}

/** CPU ms used between two readings by the processes seen in both; undefined if none was. */
function cpuUsed(before: Map<number, number>, after: Map<number, number>): number | undefined {
  let sum: number | undefined;
  for (const [pid, ms] of after) if (before.has(pid)) sum = (sum ?? 0) + ms - before.get(pid)!;
  return sum;
}

interface Figures {
  count: number;
  errors: number;
  /** Sorted, in ms. */
  latencies: number[];
  seconds: number;
}

async function runLoop(work: (worker: number) => Promise<void>, concurrency: number, seconds: number): Promise<Figures> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        try {
          await work(worker);
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

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const scratch = await scratchDatabase('inntak_bench_intake');
const handle = openDatabase({ connectionString: scratch.url, logger: quiet });
const owner = await createPerson(handle.db, { subject: 'bench' });
const collection = await createCollection(handle.db, { title: 'Bench', ownerId: owner.id });
for (let i = 0; i < 4; i++) {
  const reader = await createPerson(handle.db, { subject: `reader-${i}` });
  await grantAccess(handle.db, OPERATOR, { subject_id: reader.id, object_id: collection.id, access: 'reader' });
}
const webhook = await createWebhook(handle.db, { collectionId: collection.id, templateId: 'forge-push' });
const payload = pushPayload();
const body = JSON.stringify(payload);
const accessRows = Number((await handle.pool.query('select count(*) from node_access where object_id = $1', [collection.id])).rows[0].count);
const pgbenchFound = spawnSync(PGBENCH, ['--version']).status === 0;
console.log(
  `payload ${body.length} bytes, collection with ${accessRows} access rows, ${DURATION_S} s per run, ` +
    `${API_PROCESSES} API process(es), ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)}`,
);
if (!pgbenchFound) {
  console.log(`${PGBENCH} not found (Debian package postgresql-client brings it): the ceiling runs through Node's pg instead.`);
}

// --- HTTP through the real API process(es) ---------------------------------------------------
/** Node ids of every 200, checked against the database at the end. */
const created: string[] = [];

/** One build of the API as API_PROCESSES processes; connection i goes to process i mod N. */
async function startApi(spec: string, basePort: number): Promise<{ processes: ChildProcess[]; post(worker: number): Promise<void> }> {
  // A build may carry settings of its own: `main.js#INTAKE_GROUP_COMMIT=1&NAME=value`.
  const [mainJs, settings] = spec.split('#') as [string, string | undefined];
  const own = Object.fromEntries(new URLSearchParams(settings ?? ''));
  const processes = Array.from({ length: API_PROCESSES }, (_, i) =>
    // API_NODE_OPTIONS: node flags for the API processes alone, e.g. --cpu-prof.
    spawn(process.execPath, [...(process.env.API_NODE_OPTIONS?.split(' ').filter(Boolean) ?? []), mainJs], {
      env: { ...process.env, ...own, DATABASE_URL: scratch.url, PORT: String(basePort + i), LOG_LEVEL: 'error' },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const agents = processes.map(() => new http.Agent({ keepAlive: true }));
  const post = (worker: number) =>
    new Promise<void>((resolve, reject) => {
      const api = worker % API_PROCESSES;
      const req = http.request(
        {
          host: '127.0.0.1',
          port: basePort + api,
          method: 'POST',
          path: `/api/webhook/${webhook.token}`,
          agent: agents[api],
          // Each delivery with its own id, as GitHub sends them: the duplicate check runs on every one.
          headers: { 'content-type': 'application/json', ...EVENT_HEADERS, 'x-github-delivery': randomUUID() },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => {
            if (res.statusCode !== 200) return reject(new Error(String(res.statusCode)));
            created.push((JSON.parse(text) as { node_id: string }).node_id);
            resolve();
          });
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  for (let api = 0; api < API_PROCESSES; api++) {
    for (let i = 0; ; i++) {
      try {
        await post(api);
        break;
      } catch {
        if (i > 150) throw new Error(`API ${mainJs} did not come up`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
  return { processes, post };
}
const builds = args.api.split(',');
const apis = await Promise.all(builds.map((mainJs, i) => startApi(mainJs, BASE_PORT + i * API_PROCESSES)));
// A failing run must not leave API processes behind.
process.on('exit', () => apis.forEach((api) => api.processes.forEach((p) => p.kill('SIGKILL'))));
if (builds.length > 1) builds.forEach((mainJs, i) => console.log(`API ${String.fromCharCode(65 + i)}: ${mainJs}`));

// --- The ceiling: the intake's statements through pgbench ------------------------------------
const rendered = renderPayload('forge-push', payload, EVENT_HEADERS).result;
// As the intake stores it: the template's keys and the event headers kept for re-rendering.
const sample = webhookContentNode({
  webhookId: webhook.id,
  title: rendered.title,
  content: rendered.content,
  payload,
  extraMetadata: { ...rendered.extra_metadata, event_headers: EVENT_HEADERS },
});
const workDir = await mkdtemp(path.join(os.tmpdir(), 'inntak-bench-intake-'));

/** The intake's two statements as a pgbench script: same SQL, ids made in SQL (time-ordered, like UUIDv7). */
async function pgbenchScript(): Promise<string> {
  const id = (v: string) => `(lpad(to_hex((extract(epoch from statement_timestamp()) * 1000)::bigint), 12, '0') || lpad(to_hex(:${v}::bigint), 20, '0'))::uuid`;
  const write = INTAKE_STATEMENTS.writeContent.text.replace(/\$(\d+)\b/g, (_, n: string) => {
    const node = [id('n'), ':kind', ':title', ':content', ':visibility', ':metadata', ':webhook'];
    const edge = [id('e'), id('n'), ':collection', ':edge_type', ':edge_metadata', ':system', ':webhook'];
    // The delivery's log row: a fresh delivery id each time, like the HTTP runs' X-GitHub-Delivery.
    const log = [id('l'), ':webhook', 'statement_timestamp()', `${id('d')}::text`, ':event', ':bytes', '0'];
    const bound = [...node, ...edge, ...log];
    return bound[Number(n) - 1]!;
  });
  const script = [
    '\\set n random(1, 9223372036854775806)',
    '\\set e random(1, 9223372036854775806)',
    '\\set l random(1, 9223372036854775806)',
    '\\set d random(1, 9223372036854775806)',
    `${INTAKE_STATEMENTS.findWebhook.text.replace('$1', ':token').replace(/\s+/g, ' ')};`,
    `${write};`,
  ].join('\n');
  const file = path.join(workDir, 'intake.sql');
  await writeFile(file, script + '\n');
  return file;
}
const scriptFile = pgbenchFound ? await pgbenchScript() : '';

async function viaPgbench(connections: number, seconds: number): Promise<Figures> {
  const logPrefix = path.join(workDir, `log-${connections}-${Date.now()}`);
  const vars = {
    token: webhook.token,
    kind: sample.node_kind,
    title: sample.title ?? '',
    content: sample.content ?? '',
    visibility: sample.visibility,
    metadata: JSON.stringify(sample.metadata),
    webhook: webhook.id,
    collection: collection.id,
    edge_type: 'belongs_to',
    edge_metadata: '{}',
    system: 'true',
    event: 'push',
    bytes: String(Buffer.byteLength(body)),
  };
  const started = performance.now();
  const run = spawnSync(
    PGBENCH,
    ['-n', '-M', 'prepared', '-c', String(connections), '-j', '1', '-T', String(seconds), '-f', scriptFile, '-l', `--log-prefix=${logPrefix}`, ...Object.entries(vars).flatMap(([k, v]) => ['-D', `${k}=${v}`]), scratch.url],
    { encoding: 'utf8' },
  );
  const elapsed = (performance.now() - started) / 1000;
  if (run.status !== 0) throw new Error(`pgbench failed: ${run.stderr}`);
  const latencies: number[] = [];
  for (const file of (await readdir(workDir)).filter((f) => f.startsWith(path.basename(logPrefix)))) {
    // client_id transaction_no time(µs) script_no time_epoch time_us
    for (const line of (await readFile(path.join(workDir, file), 'utf8')).split('\n')) if (line) latencies.push(Number(line.split(' ')[2]) / 1000);
  }
  latencies.sort((a, b) => a - b);
  const failed = /number of failed transactions: (\d+)/.exec(run.stdout);
  const measured = /duration: (\d+) s/.exec(run.stdout);
  return { count: latencies.length, errors: failed ? Number(failed[1]) : 0, latencies, seconds: measured ? Number(measured[1]) : elapsed };
}

// --- Fallback ceiling: the same statements through Node's pg ---------------------------------
const pool = new pg.Pool({ connectionString: scratch.url, max: Math.max(...CONNECTIONS) });
pool.on('error', () => {}); // dropping the scratch database ends its last idle connections
const viaNodePg = (connections: number, seconds: number) =>
  runLoop(
    async () => {
      const found = await pool.query({ ...INTAKE_STATEMENTS.findWebhook, values: [webhook.token] });
      const target = found.rows[0] as { id: string; target_id: string };
      const nodeId = uuidv7();
      const n = sample;
      await pool.query({
        ...INTAKE_STATEMENTS.writeContent,
        values: [
          ...[nodeId, n.node_kind, n.title, n.content, n.visibility, JSON.stringify(n.metadata), target.id],
          ...[uuidv7(), nodeId, target.target_id, 'belongs_to', '{}', true, target.id],
          ...[uuidv7(), target.id, new Date(), randomUUID(), 'push', Buffer.byteLength(body), 0],
        ],
      });
    },
    connections,
    seconds,
  );
const ceiling = pgbenchFound ? viaPgbench : viaNodePg;
const ceilingLabel = pgbenchFound ? 'pgbench' : 'Node pg (no pgbench)';

// --- Runs: HTTP and ceiling alternate, so both see the same machine ---------------------------
// Warm-up: JIT, prepared statements, caches.
for (const api of apis) await runLoop(api.post, Math.max(...CONNECTIONS), 2);
await ceiling(Math.max(...CONNECTIONS), 2);
const ms = (f: Figures, p: number) => percentile(f.latencies, p).toFixed(1).padStart(6);
const rps = (f: Figures) => f.count / f.seconds;
const label = (i: number) => (apis.length > 1 ? ` ${String.fromCharCode(65 + i)}` : '');
console.log('CPU ms/req: CPU time of the API process(es) and of the database sessions per HTTP request (less noisy than rates on a shared machine).');
console.log(`\nconn  HTTP req/s    p50    p99  errors    API     PG | ${ceilingLabel.padEnd(20)} tps    p50    p99 | ratio  load`);
for (let round = 0; round < ROUNDS; round++) {
  for (const connections of CONNECTIONS) {
    for (const [i, api] of apis.entries()) {
      const apiPids = api.processes.map((p) => p.pid!);
      const backendPids = (await handle.pool.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()')).rows.map((r) => r.pid);
      const cpuBefore = [await cpuMs(apiPids), await cpuMs(backendPids)];
      const viaHttp = await runLoop(api.post, connections, DURATION_S);
      const cpuAfter = [await cpuMs(apiPids), await cpuMs(backendPids)];
      const perRequest = (k: number) => {
        const used = cpuUsed(cpuBefore[k]!, cpuAfter[k]!);
        return used === undefined ? '     -' : (used / viaHttp.count).toFixed(2).padStart(6);
      };
      const viaSql = await ceiling(connections, DURATION_S);
      console.log(
        `${String(connections).padStart(4)}  ${rps(viaHttp).toFixed(0).padStart(10)} ${ms(viaHttp, 50)} ${ms(viaHttp, 99)} ${String(viaHttp.errors).padStart(7)} ${perRequest(0)} ${perRequest(1)} | ` +
          `${rps(viaSql).toFixed(0).padStart(24)} ${ms(viaSql, 50)} ${ms(viaSql, 99)} | ${(rps(viaHttp) / rps(viaSql)).toFixed(2).padStart(5)} ${os.loadavg()[0]!.toFixed(1).padStart(5)}${label(i)}`,
      );
    }
  }
}
const processes = apis.flatMap((api) => api.processes);
for (const p of processes) p.kill('SIGTERM');
await Promise.all(processes.map((p) => new Promise((r) => p.once('exit', r))));
await pool.end();

// Every 200 has its node, edge and access rows.
const check = await handle.pool.query<{ nodes: string; edges: string; access: string }>(
  `select (select count(*) from nodes where id = any($1::uuid[])) as nodes,
          (select count(*) from edges where source_id = any($1::uuid[]) and target_id = $2 and edge_type = 'belongs_to') as edges,
          (select count(*) from node_access where object_id = any($1::uuid[])) as access`,
  [created, collection.id],
);
const rows = check.rows[0]!;
const complete = Number(rows.nodes) === created.length && Number(rows.edges) === created.length && Number(rows.access) === created.length * accessRows;
console.log(`\n${created.length} answers 200: ${rows.nodes} nodes, ${rows.edges} edges, ${rows.access} access rows — ${complete ? 'all complete' : 'INCOMPLETE'}`);
await handle.close();
await rm(workDir, { recursive: true, force: true });
await scratch.drop();
if (!complete) process.exit(1);
