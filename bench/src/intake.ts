/**
 * npm run bench:intake [-- --connections 1,8,32 --duration 10 --rounds 1 --api-processes 1 --api A.js,B.js --client node,wrk]
 *
 * Webhook intake against its ceiling, for each connection count (docs/performance.md):
 * 1. HTTP: the API runs as its own process(es); keep-alive connections POST a 1.9 KB GitHub push
 *    payload to a forge-push webhook on a collection with 5 access rows. Every 200's node, edge
 *    and 5 access rows are checked afterwards. `--client` picks the sender: this process's Node
 *    HTTP client (`node`, the default) or wrk (`wrk`, a C client like pgbench, wrk-client.ts);
 *    both print their own CPU per answer, since on two cores it is taken from the service.
 * 2. Two ceilings, with as many pgbench clients (intake-ceilings.ts): the intake's exact SQL,
 *    and the minimal write (node, edge, access rows, one transaction, no triggers), which is the
 *    same work at every commit and so shows what the intake has come to cost (issue 40).
 * Prints one row per connection count, round and build, with the ratio HTTP / each ceiling and
 * the database CPU per intake (HTTP) and per transaction of each ceiling. The machine's load
 * average is printed too: on a shared machine only ratios within one run mean much.
 * `--api` names other builds' apps/api/dist/main.js, alternating with this one's: before/after
 * in one run. Each build writes into a database of its own, migrated with its own repository's
 * db/migrations (found beside apps/api/dist/main.js), so its triggers are its own too;
 * `main.js#INTAKE_GROUP_COMMIT=1` runs a build with settings of its own.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { migrate, withClient } from '@inntak/postgres';
import { percentile, scratchDatabase } from './bench-database.js';
import { Ceilings, cpuMs, cpuUsed, runLoop, type Figures } from './intake-ceilings.js';
import { intakeScene, postDelivery, pushPayload, sampleNode, untilAnswered, type IntakeScene } from './intake-scene.js';
import { hasWrk, WRK, wrkRun } from './wrk-client.js';

const { values: args } = parseArgs({
  options: {
    connections: { type: 'string', default: '1,8,32' },
    duration: { type: 'string', default: process.env.DURATION_S ?? '10' },
    rounds: { type: 'string', default: '1' },
    'api-processes': { type: 'string', default: '1' },
    api: { type: 'string', default: fileURLToPath(new URL('../../apps/api/dist/main.js', import.meta.url)) },
    client: { type: 'string', default: 'node' },
  },
});
const CONNECTIONS = args.connections.split(',').map(Number);
const DURATION_S = Number(args.duration);
const ROUNDS = Number(args.rounds);
const API_PROCESSES = Number(args['api-processes']);
const CLIENTS = args.client.split(',');
if (
  CONNECTIONS.some((c) => !Number.isInteger(c) || c < 1) ||
  !(DURATION_S > 0) ||
  !(ROUNDS >= 1) ||
  !(API_PROCESSES >= 1) ||
  CLIENTS.some((c) => c !== 'node' && c !== 'wrk') ||
  (CLIENTS.includes('wrk') && API_PROCESSES > 1)
) {
  console.error('usage: bench:intake [--connections 1,8,32] [--duration SECONDS] [--rounds N] [--api-processes N] [--api MAIN.js,...] [--client node,wrk (wrk: one API process)]');
  process.exit(2);
}
if (CLIENTS.includes('wrk') && !hasWrk()) {
  console.error(`--client wrk: ${WRK} not found (Debian package wrk)`);
  process.exit(2);
}
/** What wrk's delivery ids start with, so its deliveries are found for the final check. */
const WRK_PREFIX = `wrk-${randomUUID().slice(0, 8)}-`;
const BASE_PORT = 18080 + Math.floor(Math.random() * 1000);
const payload = pushPayload();
const body = JSON.stringify(payload);

/** One build: its database (migrated with its own migrations), its API process(es) and ceilings. */
interface Build {
  scene: IntakeScene;
  ceilings: Ceilings;
  processes: ChildProcess[];
  post(worker: number): Promise<void>;
  /** Node ids of every 200 of the Node client, checked against the database at the end. */
  created: string[];
  /** 200s wrk counted, checked against the database at the end. */
  wrkAnswers: number;
  port: number;
  drop(): Promise<void>;
}

async function startBuild(spec: string, index: number): Promise<Build> {
  // A build may carry settings of its own: `main.js#INTAKE_GROUP_COMMIT=1&NAME=value`.
  const [mainJs, settings] = spec.split('#') as [string, string | undefined];
  const own = Object.fromEntries(new URLSearchParams(settings ?? ''));
  const scratch = await scratchDatabase(`inntak_bench_intake_${index}`);
  const migrations = path.resolve(path.dirname(mainJs), '../../../db/migrations');
  if (existsSync(migrations) && path.resolve(migrations) !== path.resolve(fileURLToPath(new URL('../../db/migrations', import.meta.url)))) {
    await withClient(scratch.url, (c) => c.query('drop schema public cascade; create schema public'));
    await migrate(scratch.url, migrations);
  }
  const scene = await intakeScene(scratch.url);
  const ceilings = await Ceilings.create(scratch.url, scene, sampleNode(scene.webhook.id, payload), Buffer.byteLength(body));
  const basePort = BASE_PORT + index * API_PROCESSES;
  const processes = Array.from({ length: API_PROCESSES }, (_, i) =>
    // API_NODE_OPTIONS: node flags for the API processes alone, e.g. --cpu-prof.
    spawn(process.execPath, [...(process.env.API_NODE_OPTIONS?.split(' ').filter(Boolean) ?? []), mainJs], {
      env: { ...process.env, ...own, DATABASE_URL: scratch.url, PORT: String(basePort + i), LOG_LEVEL: 'error' },
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const agents = processes.map(() => new http.Agent({ keepAlive: true }));
  const created: string[] = [];
  // Connection i goes to process i mod N.
  const post = async (worker: number) => {
    const api = worker % API_PROCESSES;
    created.push(await postDelivery(basePort + api, agents[api]!, scene.webhook.token, body));
  };
  for (let api = 0; api < API_PROCESSES; api++) await untilAnswered(() => post(api), mainJs);
  return { scene, ceilings, processes, post, created, wrkAnswers: 0, port: basePort, drop: scratch.drop };
}

const specs = args.api.split(',');
const builds: Build[] = [];
for (const [i, spec] of specs.entries()) builds.push(await startBuild(spec, i));
// A failing run must not leave API processes behind.
process.on('exit', () => builds.forEach((b) => b.processes.forEach((p) => p.kill('SIGKILL'))));
const first = builds[0]!;
console.log(
  `payload ${body.length} bytes, collection with ${first.scene.accessRows} access rows, ${DURATION_S} s per run, ` +
    `${API_PROCESSES} API process(es), ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)}`,
);
if (!first.ceilings.viaPgbench) console.log("/usr/bin/pgbench not found (Debian package postgresql-client brings it): the ceilings run through Node's pg instead.");
if (builds.length > 1) specs.forEach((spec, i) => console.log(`API ${String.fromCharCode(65 + i)}: ${spec}`));

// --- Runs: HTTP and ceilings alternate, so all see the same machine --------------------------
// Warm-up: JIT, prepared statements, caches.
for (const b of builds) {
  await runLoop(b.post, Math.max(...CONNECTIONS), 2);
  for (const kind of b.ceilings.kinds) await b.ceilings.run(kind, Math.max(...CONNECTIONS), 2);
  // Statistics, as a running service's tables have them: a scratch database's sessions would
  // otherwise keep plans made while its tables were empty (autovacuum's first ANALYZE comes a
  // minute or more later), which measures a fresh install's first minute, not an intake.
  await b.scene.handle.pool.query('analyze');
}
const ms = (f: Figures, p: 50 | 99) => (f.percentiles?.[p] ?? percentile(f.latencies, p)).toFixed(1).padStart(6);
const rps = (f: Figures) => f.count / f.seconds;
const cpu = (x: number | undefined) => (x === undefined ? '     -' : x.toFixed(2).padStart(6));
const label = (i: number, client: string) => `${builds.length > 1 ? ` ${String.fromCharCode(65 + i)}` : ''}${CLIENTS.length > 1 ? ` ${client}` : ''}`;
const workDir = await mkdtemp(path.join(os.tmpdir(), 'inntak-bench-wrk-'));
console.log(
  'CPU ms: of the sender (client), the API process(es) and the database sessions per HTTP request, and of the database sessions per ceiling transaction\n' +
    `(less noisy than rates on a shared machine). Ceilings: ${first.ceilings.label} of the intake's own SQL, and of the minimal write (node, edge, access rows).`,
);
console.log(`\nconn  HTTP req/s    p50    p99  errors client    API     PG | intake SQL tps    p99     PG ratio | minimal tps    p99     PG ratio |  load`);

/** One HTTP run: its figures, and CPU per answer of the sender, the API process(es) and the database sessions over the middle of it. */
async function httpRun(b: Build, client: string, connections: number): Promise<{ figures: Figures; cpu: Array<number | undefined> }> {
  const apiPids = b.processes.map((p) => p.pid!);
  const backendPids = async () =>
    (await b.scene.handle.pool.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()')).rows.map((r) => r.pid);
  const readings: Array<{ answers: number; cpu: Array<Map<number, number>>; own: NodeJS.CpuUsage }> = [];
  const read = async (answers: number, pids: number[]) => void readings.push({ answers, cpu: [await cpuMs(apiPids), await cpuMs(pids)], own: process.cpuUsage() });
  let figures: Figures;
  let clientCpu: number | undefined;
  if (client === 'wrk') {
    let pids: number[] = [];
    const answered = async () => Number((await b.scene.handle.pool.query<{ n: string }>('select count(*) as n from webhook_deliveries where webhook_id = $1', [b.scene.webhook.id])).rows[0]!.n);
    const wrk = await wrkRun({
      workDir,
      url: `http://127.0.0.1:${b.port}/api/webhook/${b.scene.webhook.token}`,
      body,
      deliveryPrefix: WRK_PREFIX,
      connections,
      seconds: DURATION_S,
      answered,
      atWindow: async (edge, answers) => {
        if (edge === 'from') pids = await backendPids();
        await read(answers, pids);
      },
    });
    b.wrkAnswers += wrk.count;
    figures = wrk;
    clientCpu = wrk.clientCpu;
  } else {
    // CPU over the middle of the run, once the API's pools have connected (they close idle
    // connections while the ceilings run), divided by the answers in between.
    const window = Math.min(1000, (DURATION_S * 1000) / 4);
    const running = runLoop(b.post, connections, DURATION_S);
    await new Promise((r) => setTimeout(r, window));
    const pids = await backendPids();
    await read(b.created.length, pids);
    await new Promise((r) => setTimeout(r, DURATION_S * 1000 - 2 * window));
    await read(b.created.length, pids);
    figures = await running;
    const [from, to] = readings as [(typeof readings)[0], (typeof readings)[0]];
    // This process's CPU in the window is the Node client's (and the ceilings' idle pool).
    if (to.answers > from.answers) clientCpu = (to.own.user + to.own.system - from.own.user - from.own.system) / 1000 / (to.answers - from.answers);
  }
  const [from, to] = readings as [(typeof readings)[0], (typeof readings)[0]];
  const perRequest = (k: number) => {
    const used = cpuUsed(from.cpu[k]!, to.cpu[k]!);
    return used === undefined || to.answers === from.answers ? undefined : used / (to.answers - from.answers);
  };
  return { figures, cpu: [clientCpu, perRequest(0), perRequest(1)] };
}

for (let round = 0; round < ROUNDS; round++) {
  for (const connections of CONNECTIONS) {
    for (const [i, b] of builds.entries()) {
      const runs = [];
      for (const client of CLIENTS) runs.push({ client, ...(await httpRun(b, client, connections)) });
      const own = await b.ceilings.run('intake', connections, DURATION_S);
      const minimal = (await b.ceilings.run('minimal', connections, DURATION_S))!;
      for (const { client, figures: viaHttp, cpu: used } of runs) {
        const ceiling = (f: Figures | undefined) => (f === undefined ? '-' : `${rps(f).toFixed(0).padStart(5)} ${ms(f, 99)} ${cpu(f.dbCpu)} ${(rps(viaHttp) / rps(f)).toFixed(2).padStart(5)}`);
        console.log(
          `${String(connections).padStart(4)}  ${rps(viaHttp).toFixed(0).padStart(10)} ${ms(viaHttp, 50)} ${ms(viaHttp, 99)} ${String(viaHttp.errors).padStart(7)} ${used.map(cpu).join(' ')} | ` +
            `${ceiling(own).padStart(31)} | ${ceiling(minimal).padStart(28)} | ${os.loadavg()[0]!.toFixed(1).padStart(5)}${label(i, client)}`,
        );
      }
    }
  }
}
const processes = builds.flatMap((b) => b.processes);
for (const p of processes) p.kill('SIGTERM');
await Promise.all(processes.map((p) => new Promise((r) => p.once('exit', r))));

// Every 200 has its node, edge and access rows: the Node client's by the node ids it was
// answered, wrk's by its deliveries (their ids start with WRK_PREFIX).
let complete = true;
for (const [i, b] of builds.entries()) {
  const check = await b.scene.handle.pool.query<{ nodes: string; edges: string; access: string; wrk: string; wrk_whole: string }>(
    `with wrk as (select d.node_id from webhook_deliveries d where d.webhook_id = $3 and d.delivery_id like $4 || '%'),
          whole as (select w.node_id from wrk w where exists (select from nodes n where n.id = w.node_id)
                      and (select count(*) from edges e where e.source_id = w.node_id and e.target_id = $2 and e.edge_type = 'belongs_to') = 1
                      and (select count(*) from node_access a where a.object_id = w.node_id) = $5)
     select (select count(*) from nodes where id = any($1::uuid[])) as nodes,
            (select count(*) from edges where source_id = any($1::uuid[]) and target_id = $2 and edge_type = 'belongs_to') as edges,
            (select count(*) from node_access where object_id = any($1::uuid[])) as access,
            (select count(*) from wrk) as wrk, (select count(*) from whole) as wrk_whole`,
    [b.created, b.scene.collectionId, b.scene.webhook.id, WRK_PREFIX, b.scene.accessRows],
  );
  const rows = check.rows[0]!;
  // wrk's count leaves out answers still in flight when its time ran out; those were stored too.
  const wrkWhole = Number(rows.wrk) >= b.wrkAnswers && Number(rows.wrk_whole) === Number(rows.wrk);
  const whole = Number(rows.nodes) === b.created.length && Number(rows.edges) === b.created.length && Number(rows.access) === b.created.length * b.scene.accessRows && wrkWhole;
  complete &&= whole;
  const viaWrk = CLIENTS.includes('wrk') ? `; wrk ${b.wrkAnswers} answers 200, ${rows.wrk} deliveries stored, ${rows.wrk_whole} with node, edge and access rows` : '';
  console.log(`\n${b.created.length} answers 200${label(i, '')}: ${rows.nodes} nodes, ${rows.edges} edges, ${rows.access} access rows${viaWrk} — ${whole ? 'all complete' : 'INCOMPLETE'}`);
  await b.ceilings.close();
  await b.scene.handle.close();
  await b.drop();
}
await rm(workDir, { recursive: true, force: true });
if (!complete) process.exit(1);
