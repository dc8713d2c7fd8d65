/**
 * npm run bench:intake-sessions [-- --connections 8 --duration 10 --api apps/api/dist/main.js]
 *
 * Where an HTTP intake's CPU goes, process by process (issue 40, docs/performance.md): the API
 * runs as its own process against a scratch database, keep-alive connections POST bench:intake's
 * GitHub push, and over the measured run it prints the CPU per intake of the API process and of
 * each database session (by its role: the intake pool, the page cache, the realtime listeners),
 * read from /proc. What bench:intake's ceilings cannot show: work the API's own sessions do that
 * pgbench's do not (a plan kept from an empty table, a query planned every time).
 *
 * Also printed: the tables read by sequential scan during the run, and, where the server has
 * pg_stat_statements loaded (shared_preload_libraries; `track = all`, `track_planning = on` for
 * nested statements and planning) and track_functions = all, the statements and functions by
 * time per intake. Warm-up first, then ANALYZE, as a running service's tables have statistics.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { scratchDatabase } from './bench-database.js';
import { cpuMs, runLoop } from './intake-ceilings.js';
import { intakeScene, postDelivery, pushPayload, untilAnswered } from './intake-scene.js';

const { values: args } = parseArgs({
  options: {
    connections: { type: 'string', default: '8' },
    duration: { type: 'string', default: '10' },
    api: { type: 'string', default: fileURLToPath(new URL('../../apps/api/dist/main.js', import.meta.url)) },
  },
});
const CONNECTIONS = Number(args.connections);
const DURATION_S = Number(args.duration);
if (!Number.isInteger(CONNECTIONS) || CONNECTIONS < 1 || !(DURATION_S > 0)) {
  console.error('usage: bench:intake-sessions [--connections N] [--duration SECONDS] [--api MAIN.js]');
  process.exit(2);
}

const body = JSON.stringify(pushPayload());
const scratch = await scratchDatabase('inntak_bench_sessions');
const scene = await intakeScene(scratch.url);
const port = 19080 + Math.floor(Math.random() * 500);
const api = spawn(process.execPath, [args.api], {
  env: { ...process.env, DATABASE_URL: scratch.url, PORT: String(port), LOG_LEVEL: 'error' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
process.on('exit', () => api.kill('SIGKILL'));
const agent = new http.Agent({ keepAlive: true });
let answered = 0;
const post = async () => {
  await postDelivery(port, agent, scene.webhook.token, body);
  answered++;
};
await untilAnswered(post, args.api);
await runLoop(post, CONNECTIONS, 3);

const client = new pg.Client({ connectionString: scratch.url, application_name: 'bench' });
await client.connect();
await client.query('analyze');
const statements = await client
  .query('create extension if not exists pg_stat_statements')
  .then(() => client.query('select pg_stat_statements_reset()'))
  .then(() => true)
  .catch(() => false);
await client.query('select pg_stat_reset()');

type Session = { pid: number; backend_type: string; application_name: string; query: string };
const sessionsOf = async () =>
  (await client.query<Session>("select pid, backend_type, application_name, left(regexp_replace(query, '\\s+', ' ', 'g'), 50) as query from pg_stat_activity where pid <> pg_backend_pid()")).rows;
const pids = () => sessionsOf().then((rows) => [api.pid!, ...rows.map((r) => r.pid)]);
const before = await cpuMs(await pids());
answered = 0;
const run = await runLoop(post, CONNECTIONS, DURATION_S);
const sessions = await sessionsOf();
const after = await cpuMs([api.pid!, ...sessions.map((r) => r.pid)]);
const used = (pid: number) => (before.has(pid) && after.has(pid) ? after.get(pid)! - before.get(pid)! : undefined);
const perIntake = (ms: number | undefined) => (ms === undefined ? '     -' : (ms / answered).toFixed(3).padStart(6));

console.log(`${answered} intakes in ${run.seconds.toFixed(1)} s at ${CONNECTIONS} connections (${(run.count / run.seconds).toFixed(0)} req/s), load average ${os.loadavg()[0]!.toFixed(1)}`);
console.log('\nCPU ms per intake, by process (a session by its role: its application name, else its last statement)');
console.log(`${perIntake(used(api.pid!))}  API process`);
const roles = new Map<string, { sessions: number; ms: number }>();
for (const s of sessions) {
  const ms = used(s.pid);
  if (ms === undefined) continue;
  const role = s.backend_type !== 'client backend' ? s.backend_type : s.application_name || s.query;
  const entry = roles.get(role) ?? { sessions: 0, ms: 0 };
  roles.set(role, { sessions: entry.sessions + 1, ms: entry.ms + ms });
}
for (const [role, { sessions: n, ms }] of [...roles].sort((a, b) => b[1].ms - a[1].ms)) if (ms > 0) console.log(`${perIntake(ms)}  ${role} (${n} session${n === 1 ? '' : 's'})`);

const scans = await client.query<{ relname: string; seq_scan: string; seq_tup_read: string }>(
  'select relname, seq_scan, seq_tup_read from pg_stat_user_tables where seq_tup_read > 0 order by seq_tup_read desc limit 8',
);
console.log('\nSequential scans during the run:' + (scans.rows.length === 0 ? ' none' : ''));
for (const r of scans.rows) console.log(`  ${r.relname}: ${r.seq_scan} scans, ${r.seq_tup_read} rows read`);

if (statements) {
  const top = await client.query<{ calls: string; ms: number; plan: number; q: string }>(
    `select calls, (total_exec_time + total_plan_time) / $1 as ms, total_plan_time / $1 as plan, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) as q
       from pg_stat_statements where dbid = (select oid from pg_database where datname = current_database()) and toplevel
      order by total_exec_time + total_plan_time desc limit 10`,
    [answered],
  );
  console.log('\nStatements (top level) by time per intake (execution + planning, ms), calls per intake:');
  for (const r of top.rows) console.log(`${r.ms.toFixed(3).padStart(7)} (plan ${r.plan.toFixed(3)})  ${(Number(r.calls) / answered).toFixed(2).padStart(5)}  ${r.q}`);
  const functions = await client.query<{ funcname: string; calls: string; own: number; total: number }>(
    'select funcname, calls, self_time / $1 as own, total_time / $1 as total from pg_stat_user_functions order by self_time desc limit 12',
    [answered],
  );
  if (functions.rows.length > 0) console.log('\nFunctions by own time per intake (ms; with callees), calls per intake (track_functions = all):');
  for (const r of functions.rows) console.log(`${r.own.toFixed(3).padStart(7)} (${r.total.toFixed(3)})  ${(Number(r.calls) / answered).toFixed(2).padStart(5)}  ${r.funcname}`);
} else {
  console.log('\n(no pg_stat_statements on this server: start one with shared_preload_libraries = pg_stat_statements for the statements, docs/performance.md)');
}

await client.end();
api.kill('SIGTERM');
await new Promise((r) => api.once('exit', r));
await scene.handle.close();
await scratch.drop();
