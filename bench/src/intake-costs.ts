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
import { insertNeverMatchingOrchestrations, storesOn } from '@inntak/postgres/testing';
import { scratchDatabase } from './bench-database.js';
import { intakeScene, minimalWrite, pushPayload, sampleNode, type IntakeScene } from './intake-scene.js';
import { createCollection, createPerson } from '@inntak/access';

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

/**
 * Trigger groups switched off one at a time: [label, table.trigger…], or indexes dropped for one
 * variant and built again after it (`index:name`). Missing ones are skipped.
 */
const WITHOUT: [string, string[]][] = [
  ['without change notices of nodes and edges', ['nodes.nodes_notify_write', 'edges.edges_notify_write']],
  // Before 030: a row trigger for the notices, a statement trigger for the readers; since, one statement trigger.
  ['without node_access change notices', ['node_access.node_access_notify_write']],
  ['without readers on access rows (025)', ['node_access.node_access_search_insert']],
  ['without notices and readers of new access rows (030)', ['node_access.node_access_inserted']],
  ['without the search document at commit', ['nodes.nodes_search_insert']],
  ['without orchestration matching at commit', ['nodes.nodes_orchestration_match', 'edges.edges_orchestration_match']],
  ["without node_search's readers-and-words index (025)", ['index:node_search_readers_document_idx']],
  ["without node_search's created_by index (025)", ['index:node_search_created_by_idx']],
  ["without edges' created_by index (026)", ['index:edges_created_by_idx']],
  ["without node_search's two whole-table GIN indexes (005, 007)", ['index:node_search_document_idx', 'index:node_search_title_document_idx']],
  // Not a removal: what the matcher costs once any node.created orchestration exists (017/019).
  ['with 3 never-matching node.created orchestrations of another person', ['orchestrations:3']],
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
  // This schema's write (23 arguments since 036/037: the kept headers, the previous token's hash).
  const sendsNotices = (await client.query("select 1 from pg_proc where proname = 'inntak_intake_write_quiet' and pronargs = 23")).rowCount === 1;
  // An older schema (before 031) has only the write that notifies itself.
  const statement = sendsNotices
    ? INTAKE_STATEMENTS.writeContent
    : { name: 'old_write', text: INTAKE_STATEMENTS.writeContent.text.replace('inntak_intake_write_quiet', 'inntak_intake_write').replace(', $22, $23)', ')') };
  const write = async () => {
    const nodeId = uuidv7();
    const edgeId = uuidv7();
    if (minimal) return minimalWrite(client, t.scene, n, nodeId, edgeId);
    await client.query({
      ...statement,
      values: [
        ...[nodeId, n.node_kind, n.title, n.content, n.visibility, JSON.stringify(n.metadata), t.scene.webhook.id],
        ...[edgeId, nodeId, t.scene.collectionId, 'belongs_to', '{}', true, t.scene.webhook.id],
        ...[uuidv7(), t.scene.webhook.id, new Date(), randomUUID(), 'push', bytes, 0],
        ...(sendsNotices ? ['{}', null] : []),
      ],
    });
    // Since 031 the intake sends its change notices after the write, as a statement of their own.
    if (sendsNotices) await client.query({ ...INTAKE_STATEMENTS.sendNotices, values: [[nodeId], [edgeId]] });
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

/** Switches the named triggers off (or all back on) and drops the named indexes; returns what it found and how to undo the drops. */
async function without(t: Target, off: string[]): Promise<{ found: string[]; restore(): Promise<void> }> {
  const indexes = off.filter((name) => name.startsWith('index:')).map((name) => name.slice('index:'.length));
  const definitions = (await t.scene.handle.pool.query<{ name: string; definition: string }>(
    "select indexrelid::regclass::text as name, pg_get_indexdef(indexrelid) as definition from pg_index where indexrelid::regclass::text = any($1)",
    [indexes],
  )).rows;
  for (const d of definitions) await t.scene.handle.pool.query(`drop index ${d.name}`);
  const found = [...(await triggers(t, off)), ...definitions.map((d) => `index:${d.name}`)];
  const orchestrations = Number(off.find((name) => name.startsWith('orchestrations:'))?.split(':')[1] ?? 0);
  if (orchestrations > 0) {
    const stranger = await createPerson(storesOn(t.scene.handle.db).graph, { subject: `stranger-${randomUUID()}` });
    const theirs = await createCollection(storesOn(t.scene.handle.db).graph, { title: 'Fremmed', ownerId: stranger.id });
    await insertNeverMatchingOrchestrations(t.scene.handle.db, stranger.id, theirs.id, orchestrations);
    found.push(`orchestrations:${stranger.id}`);
  }
  return {
    found,
    async restore() {
      await triggers(t, []);
      for (const d of definitions) await t.scene.handle.pool.query(d.definition);
      if (orchestrations > 0) await t.scene.handle.pool.query("delete from nodes where node_kind = 'orchestration'");
    },
  };
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
    const off = await without(targets[0]!, names);
    if (off.found.length > 0) record(`this build, ${label}`, await writes(targets[0]!, false));
    await off.restore();
  }
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
// A session's function statistics reach shared memory when it ends, which a loaded machine may delay.
let functions;
for (let i = 0; i < 50; i++) {
  await new Promise((r) => setTimeout(r, 200));
  functions = await t.scene.handle.pool.query<{ funcname: string; calls: string; self_time: number; total_time: number }>(
    "select funcname, calls, self_time, total_time from pg_stat_user_functions order by self_time desc",
  );
  if (functions.rows.some((f) => f.funcname === 'inntak_intake_write' && Number(f.calls) >= WRITES + 50)) break;
}
const perWrite = WRITES + 50;
console.log(`\nfunction (track_functions = all, ${perWrite} writes) | calls per write | own ms per write | with callees ms per write`);
for (const f of functions!.rows) {
  console.log(`${f.funcname} | ${(Number(f.calls) / perWrite).toFixed(2)} | ${(f.self_time / perWrite).toFixed(3)} | ${(f.total_time / perWrite).toFixed(3)}`);
}
console.log(`\nload average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
for (const x of targets) {
  await x.scene.handle.close();
  await x.drop();
}
