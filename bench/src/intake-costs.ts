/**
 * npm run bench:intake-costs [-- --writes 1000 --rounds 3 --migrations OTHER/db/migrations]
 *
 * What each part of an intake's write costs the database (issue 40, docs/performance.md). One
 * session calls inntak_intake_write `--writes` times (bench:intake's payload and collection: 5
 * access rows), once per variant, the variants alternating in every round so all see the same
 * machine: all triggers; one group of triggers disabled; the minimal write (node, edge, access
 * rows, one transaction, no triggers). Per write it prints the session's CPU time (from /proc:
 * far steadier than rates on a shared machine) and its wall time. `--migrations` adds a database
 * migrated from another commit's migrations (e.g. 2026-11-25's), written to the same way.
 * Last, one pass with track_functions = all prints each SQL function's own time per write.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { uuidv7 } from '@inntak/core';
import { migrate, withClient } from '@inntak/postgres';
import { INTAKE_STATEMENTS } from '@inntak/postgres/intake';
import { scratchDatabase } from './bench-database.js';
import { intakeScene, minimalWrite, pushPayload, sampleNode, type IntakeScene } from './intake-scene.js';

const { values: args } = parseArgs({
  options: {
    writes: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    migrations: { type: 'string' },
  },
});
const WRITES = Number(args.writes);
const ROUNDS = Number(args.rounds);
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/** Trigger groups switched off one at a time: [label, table.trigger…]. Missing triggers are skipped. */
const WITHOUT: [string, string[]][] = [
  ['without change notices of nodes and edges', ['nodes.nodes_notify_write', 'edges.edges_notify_write']],
  // Before 030: a row trigger for the notices, a statement trigger for the readers; since, one statement trigger.
  ['without node_access change notices', ['node_access.node_access_notify_write']],
  ['without readers on access rows (025)', ['node_access.node_access_search_insert']],
  ['without notices and readers of new access rows (030)', ['node_access.node_access_inserted']],
  ['without the search document at commit', ['nodes.nodes_search_insert']],
  ['without orchestration matching at commit', ['nodes.nodes_orchestration_match', 'edges.edges_orchestration_match']],
];

async function backendCpuMs(pid: number): Promise<number> {
  const stat = spawnSync('cat', [`/proc/${pid}/stat`], { encoding: 'utf8' }).stdout;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

interface Target {
  label: string;
  url: string;
  scene: IntakeScene;
  drop(): Promise<void>;
}

async function target(label: string, name: string, migrations?: string): Promise<Target> {
  const scratch = await scratchDatabase(name);
  // scratchDatabase migrates with this build's migrations; another commit's start afresh.
  if (migrations) {
    await withClient(scratch.url, (c) => c.query('drop schema public cascade; create schema public'));
    await migrate(scratch.url, migrations);
  }
  return { label, url: scratch.url, scene: await intakeScene(scratch.url), drop: scratch.drop };
}

/** One session's writes: CPU and wall ms per write. */
async function writes(t: Target, minimal: boolean): Promise<{ cpu: number; wall: number }> {
  const client = new pg.Client({ connectionString: t.url });
  await client.connect();
  const pid = (await client.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
  const payload = pushPayload();
  const n = sampleNode(t.scene.webhook.id, payload);
  const bytes = Buffer.byteLength(JSON.stringify(payload));
  const write = async () => {
    const nodeId = uuidv7();
    const edgeId = uuidv7();
    if (minimal) return minimalWrite(client, t.scene, n, nodeId, edgeId);
    await client.query({
      ...INTAKE_STATEMENTS.writeContent,
      values: [
        ...[nodeId, n.node_kind, n.title, n.content, n.visibility, JSON.stringify(n.metadata), t.scene.webhook.id],
        ...[edgeId, nodeId, t.scene.collectionId, 'belongs_to', '{}', true, t.scene.webhook.id],
        ...[uuidv7(), t.scene.webhook.id, new Date(), randomUUID(), 'push', bytes, 0],
      ],
    });
  };
  for (let i = 0; i < 50; i++) await write(); // plans and caches
  const cpu0 = await backendCpuMs(pid);
  const t0 = performance.now();
  for (let i = 0; i < WRITES; i++) await write();
  const wall = (performance.now() - t0) / WRITES;
  const cpu = ((await backendCpuMs(pid)) - cpu0) / WRITES;
  await client.end();
  return { cpu, wall };
}

/** Switches the named triggers off (or all back on) in one target's database. */
async function triggers(t: Target, off: string[]): Promise<string[]> {
  const present = (await t.scene.handle.pool.query<{ name: string }>(
    `select c.relname || '.' || g.tgname as name from pg_trigger g join pg_class c on c.oid = g.tgrelid
      where not g.tgisinternal and c.relnamespace = 'public'::regnamespace`,
  )).rows.map((r) => r.name);
  for (const name of present) {
    const [table, trigger] = name.split('.');
    await t.scene.handle.pool.query(`alter table ${table} ${off.includes(name) ? 'disable' : 'enable'} trigger ${trigger}`);
  }
  return off.filter((name) => present.includes(name));
}

const targets = [await target('this build', 'inntak_bench_intake_costs')];
if (args.migrations) targets.push(await target(`migrations of ${args.migrations}`, 'inntak_bench_intake_costs_other', args.migrations));
console.log(`${WRITES} writes per variant and round, ${ROUNDS} rounds, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);

const results = new Map<string, { cpu: number[]; wall: number[] }>();
const record = (label: string, r: { cpu: number; wall: number }) => {
  const row = results.get(label) ?? { cpu: [], wall: [] };
  row.cpu.push(r.cpu);
  row.wall.push(r.wall);
  results.set(label, row);
};
for (let round = 0; round < ROUNDS; round++) {
  for (const t of targets) {
    await triggers(t, []);
    record(`${t.label}: inntak_intake_write, all triggers`, await writes(t, false));
  }
  record('minimal write (node, edge, access rows; no triggers)', await writes(targets[0]!, true));
  for (const [label, names] of WITHOUT) {
    const off = await triggers(targets[0]!, names);
    if (off.length > 0) record(`this build, ${label}`, await writes(targets[0]!, false));
  }
  await triggers(targets[0]!, []);
  console.log(`round ${round + 1} done, load average ${os.loadavg()[0]!.toFixed(1)}`);
}
const list = (xs: number[]) => xs.map((x) => x.toFixed(3)).join(', ');
console.log('\nvariant | DB CPU ms per write (each round) | wall ms per write');
for (const [label, r] of results) console.log(`${label} | ${list(r.cpu)} | ${list(r.wall)}`);

// Each function's own time, this build, all triggers on.
const t = targets[0]!;
await t.scene.handle.pool.query('select pg_stat_reset()');
await withClient(t.url, (c) => c.query(`alter database ${new URL(t.url).pathname.slice(1)} set track_functions = 'all'`));
await writes(t, false);
await new Promise((r) => setTimeout(r, 1500)); // function statistics reach shared memory at most once a second
const functions = await t.scene.handle.pool.query<{ funcname: string; calls: string; self_time: number; total_time: number }>(
  'select funcname, calls, self_time, total_time from pg_stat_user_functions order by self_time desc',
);
const perWrite = WRITES + 50;
console.log(`\nfunction (track_functions = all, ${perWrite} writes) | calls per write | own ms per write | with callees ms per write`);
for (const f of functions.rows) {
  console.log(`${f.funcname} | ${(Number(f.calls) / perWrite).toFixed(2)} | ${(f.self_time / perWrite).toFixed(3)} | ${(f.total_time / perWrite).toFixed(3)}`);
}
console.log(`\nload average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
for (const x of targets) {
  await x.scene.handle.close();
  await x.drop();
}
