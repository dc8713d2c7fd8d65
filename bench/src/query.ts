/**
 * npm run bench:query — GET /query/nodes at 1 M nodes and 3 M access rows.
 *
 * Makes a scratch database `inntak_bench_query` on DATABASE_URL's server (else the machine's
 * postgres://postgres@127.0.0.1:5432, else an embedded one), migrates it, seeds it with
 * set-based SQL, runs typical queries through the route's own queryNodes for a heavy, a light
 * and a nearly unconnected caller, prints p50/p95 per query type, and drops the database.
 *
 * Seed shape: 2,000 persons; 500 collections, each with an owner (one of 20 heavy users) and
 * two members, and a webhook; ~997,000 content nodes spread over a year, each in one
 * collection with that collection's three access rows (70 % hidden, 10 % each of
 * discoverable, readable, open; 80 % created by the webhook, 20 % by a person). Titles and
 * content are drawn from a 5,000-word vocabulary with a 1/rank (Zipf-like) frequency.
 */
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import type { NodeQuery } from '@inntak/graph';
import { AppError } from '@inntak/core';
import { cachedDatabaseStats, openDatabase, readDatabaseStats, withClient, type Db } from '@inntak/postgres';
import { queryNodes, SEARCH_TIMEOUT_MS } from '@inntak/postgres/graph';
import { keptDatabase, scratchDatabase } from './bench-database.js';

// BENCH_DB keeps a seeded database between runs (seeding 1 M nodes takes minutes): when it
// already holds a seed of BENCH_NODES nodes it is migrated and reused, and it is never dropped.
const KEPT_DB = process.env.BENCH_DB;
const DB_NAME = KEPT_DB ?? 'inntak_bench_query';
const NODES = Number(process.env.BENCH_NODES ?? 1_000_000);
const PERSONS = 2_000;
const COLLECTIONS = 500;
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 20);
const quiet = { error() {}, warn() {}, info() {}, debug() {} };

async function main(): Promise<void> {
  const scratch = KEPT_DB ? await keptDatabase(KEPT_DB, NODES) : await scratchDatabase(DB_NAME);
  try {
    let t = performance.now();
    if (scratch.fresh) {
      await withClient(scratch.url, (c) => seed(c));
      console.log(`seeded in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    } else console.log(`reusing the seeded database ${DB_NAME}`);
    t = performance.now();
    const handle = openDatabase({ connectionString: scratch.url, logger: quiet, max: 2 });
    try {
      await run(handle.db, scratch.url);
    } finally {
      await handle.close();
    }
    console.log(`measured in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  } finally {
    if (!process.env.BENCH_KEEP && !KEPT_DB) await scratch.drop();
  }
}

/** Ordinals: persons 1..2000, collections 2001..2500, webhooks 2501..3000, content above. */
async function seed(c: pg.Client): Promise<void> {
  const step = async (label: string, text: string) => {
    const t = performance.now();
    await c.query(text);
    console.log(`  ${label}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  };
  const firstCollection = PERSONS + 1;
  const firstWebhook = PERSONS + COLLECTIONS + 1;
  const firstContent = PERSONS + 2 * COLLECTIONS + 1;
  await c.query(`set maintenance_work_mem = '512MB'`);
  await c.query(`set work_mem = '256MB'`);
  // Loading without the secondary indexes and foreign-key triggers, then building the indexes
  // from the migrations' own definitions, is several times faster than loading through them.
  const indexes = await c.query<{ name: string; def: string }>(`
    select i.indexname as name, i.indexdef as def from pg_indexes i
     where i.schemaname = 'public' and i.tablename in ('nodes', 'edges', 'node_access', 'node_search')
       and not exists (select 1 from pg_constraint k where k.conname = i.indexname)`);
  for (const index of indexes.rows) await c.query(`drop index ${index.name}`);
  await c.query(`set session_replication_role = replica`);
  await c.query(`
    select setseed(0.42);
    -- Every row's id, time and collection, computed once: UUIDv7-shaped ids in creation order
    -- over a year (edges get another version nibble pattern), collection k by a fixed hash.
    create temp table ordinals as
      select i, (lpad(to_hex(1700000000000 + i * 31536), 12, '0') || '70008' || lpad(to_hex(i), 15, '0'))::uuid as id,
                (lpad(to_hex(1700000000000 + i * 31536), 12, '0') || '7e008' || lpad(to_hex(i), 15, '0'))::uuid as edge,
                to_timestamp((1700000000000 + i * 31536) / 1000.0) as at,
                (i * 7919) % ${COLLECTIONS} as k
        from generate_series(1::bigint, ${NODES}) i;
    alter table ordinals add primary key (i);
    -- A word from its frequency rank: three syllables, so 8,000 distinct words are possible.
    create function pg_temp.word(k int) returns text language sql immutable as $$
      select (array['ka','lo','mi','nu','pe','ro','si','ta','ve','yo','bra','dal','fjo','gru','hav','sku','tre','vin','ord','elv'])[1 + k % 20]
          || (array['ka','lo','mi','nu','pe','ro','si','ta','ve','yo','bra','dal','fjo','gru','hav','sku','tre','vin','ord','elv'])[1 + (k / 20) % 20]
          || (array['n','r','s','t','l','k','m','d','g','v','x','e','a','i','o','u','ar','en','et','er'])[1 + (k / 400) % 20] $$;
    -- Text snippets to combine: words of rank k in 1..5000 with probability about 1/(k ln 5000),
    -- Zipf-like. Drawing every node's words afresh costs a minute; combining snippets does not.
    create temp table snippets as
      select s, (select string_agg(pg_temp.word(floor(exp(x.r * ln(5000)))::int), ' ')
                   from (select random() as r from generate_series(1, 4 + 0 * s)) x) as title,
                (select string_agg(pg_temp.word(floor(exp(x.r * ln(5000)))::int), ' ')
                   from (select random() as r from generate_series(1, 10 + 0 * s)) x) as body
        from generate_series(0, 65535) s;
    alter table snippets add primary key (s);
    create table bench_words as select k, pg_temp.word(k) as w from generate_series(1, 5000) k;
    -- Collection k: its node, its webhook and its webhook's edge.
    create temp table collections as
      select c.i - ${firstCollection} as k, c.id as coll, w.id as webhook, w.edge as webhook_edge
        from ordinals c join ordinals w on w.i = c.i + ${COLLECTIONS}
       where c.i between ${firstCollection} and ${firstWebhook - 1};
    -- Who has access to each collection: an owner among 20 heavy users, and two members.
    create temp table collection_subjects as
      select s.k, p.id as person, s.access from (
        select k, 1 + k % 20 as person, 'owner'::access_level as access from generate_series(0, ${COLLECTIONS - 1}) k
        union all select k, 21 + (k * 7) % 1980, 'member' from generate_series(0, ${COLLECTIONS - 1}) k
        union all select k, 21 + (k * 7 + 990) % 1980, 'reader' from generate_series(0, ${COLLECTIONS - 1}) k) s
      join ordinals p on p.i = s.person;`);
  await step(
    'persons, collections, webhooks',
    `insert into nodes (id, node_kind, title, content, visibility, metadata, created_by, created_at)
     select o.id, 'person', 'Person ' || o.i, null, 'discoverable', '{}', null, o.at
       from ordinals o where o.i <= ${PERSONS};
     insert into nodes (id, node_kind, title, content, visibility, metadata, created_by, created_at)
     select c.coll, 'collection', 'Samling ' || c.k, null, 'hidden', '{}', owner.person, o.at
       from collections c join ordinals o on o.id = c.coll
       join collection_subjects owner on owner.k = c.k and owner.access = 'owner';
     insert into nodes (id, node_kind, title, content, visibility, metadata, created_by, created_at)
     select c.webhook, 'webhook', 'Webhook ' || c.k, null, 'hidden', jsonb_build_object('token', gen_random_uuid()::text), owner.person, o.at
       from collections c join ordinals o on o.id = c.webhook
       join collection_subjects owner on owner.k = c.k and owner.access = 'owner';
     insert into edges (id, source_id, target_id, edge_type, metadata, system, created_by)
     select c.webhook_edge, c.webhook, c.coll, 'belongs_to', '{}', false, null from collections c;
     insert into node_access (subject_id, object_id, access, via_edge)
     select s.person, c.coll, s.access, null from collection_subjects s join collections c using (k)
     union all
     select s.person, c.webhook, s.access, c.webhook_edge from collection_subjects s join collections c using (k);`,
  );
  await step(
    `content nodes (${NODES - firstContent + 1})`,
    `insert into nodes (id, node_kind, title, content, visibility, metadata, created_by, created_at)
     select o.id, 'content', t.title, a.body || ' ' || b.body,
            (case when g.r < 0.7 then 'hidden' when g.r < 0.8 then 'discoverable' when g.r < 0.9 then 'readable' else 'open' end)::visibility,
            jsonb_build_object('source', 'webhook', 'webhook_id', c.webhook::text),
            case when g.r2 < 0.8 then c.webhook else p.id end,
            o.at
       from (select i, random() as r, random() as r2 from generate_series(${firstContent}::bigint, ${NODES}) i) g
       join ordinals o on o.i = g.i
       join collections c on c.k = o.k
       join ordinals p on p.i = 1 + (g.i * 31) % ${PERSONS}
       join snippets t on t.s = (g.i * 40503) % 65536
       join snippets a on a.s = (g.i * 9973) % 65536
       join snippets b on b.s = (g.i * 31337 + 7) % 65536`,
  );
  await step(
    'content belongs_to edges',
    `insert into edges (id, source_id, target_id, edge_type, metadata, system, created_by)
     select o.edge, o.id, c.coll, 'belongs_to', '{}', true, c.webhook
       from ordinals o join collections c on c.k = o.k where o.i >= ${firstContent}`,
  );
  await step(
    'content access rows',
    `insert into node_access (subject_id, object_id, access, via_edge)
     select s.person, o.id, s.access, o.edge
       from ordinals o join collection_subjects s on s.k = o.k where o.i >= ${firstContent}`,
  );
  // Triggers do not fire while loading as a replica; this is the migration's own backfill.
  // Since 025 the readers' columns sit beside the documents; before it (a before/after run on
  // one seed) they do not.
  const readers = (await c.query(`select 1 from information_schema.columns where table_name = 'node_search' and column_name = 'visibility'`)).rowCount;
  await step(
    'search documents',
    `insert into node_search (node_id, document, title_document ${readers ? ', visibility, created_by, readers' : ''})
     select n.id, node_search_document(n.title, n.content), setweight(to_tsvector('simple', coalesce(n.title, '')), 'A')
            ${readers ? `, n.visibility, n.created_by, coalesce(r.readers, '')` : ''}
       from nodes n
       ${readers ? `left join (select object_id, array_to_tsvector(array_agg(inntak_reader_lexeme(subject_id))) as readers
                                from node_access group by object_id) r on r.object_id = n.id` : ''}`,
  );
  await c.query(`set session_replication_role = origin`);
  for (const index of indexes.rows) await step(`index ${index.name}`, index.def);
  await step('vacuum analyze', 'vacuum analyze nodes, edges, node_access, node_search');
  const counts = await c.query<{ nodes: string; access: string }>(
    'select (select count(*) from nodes) as nodes, (select count(*) from node_access) as access',
  );
  console.log(`  ${counts.rows[0]!.nodes} nodes, ${counts.rows[0]!.access} access rows`);
  if (KEPT_DB) await c.query('insert into bench_seed values ($1)', [NODES]);
}

interface Caller {
  label: string;
  id: string;
  collections: string[];
}

interface Case {
  name: string;
  query: (caller: Caller, i: number) => NodeQuery;
  /** Fewer runs for a case known to be slow. */
  iterations?: number;
  /** Time the page that starts the second window (the cursor of the window's last page). */
  deep?: boolean;
}

async function run(db: Db, url: string): Promise<void> {
  const ids = await withClient(url, async (c) => {
    const persons = await c.query<{ id: string; n: string }>(`
      select a.subject_id as id, count(*) as n from node_access a
        join nodes p on p.id = a.subject_id and p.node_kind = 'person'
       group by a.subject_id order by count(*) desc`);
    const heavy = persons.rows[0]!.id;
    const light = persons.rows[Math.floor(persons.rows.length / 2)]!.id;
    const none = await c.query<{ id: string }>(`
      select p.id from nodes p where p.node_kind = 'person'
         and not exists (select 1 from node_access a where a.subject_id = p.id) order by p.id limit 1`);
    const collectionsOf = async (person: string) =>
      (await c.query<{ id: string }>(`select object_id as id from node_access a join nodes n on n.id = a.object_id
        where a.subject_id = $1 and n.node_kind = 'collection' order by 1`, [person])).rows.map((r) => r.id);
    const anyCollections = (await c.query<{ id: string }>(`select id from nodes where node_kind = 'collection' order by id limit 10`)).rows.map(
      (r) => r.id,
    );
    const callers: Caller[] = [
      { label: 'heavy', id: heavy, collections: await collectionsOf(heavy) },
      { label: 'light', id: light, collections: await collectionsOf(light) },
      { label: 'no rows', id: none.rows[0]!.id, collections: anyCollections },
    ];
    const words = await c.query<{ w: string; k: number }>('select w, k from bench_words order by k');
    const webhooks = (await c.query<{ id: string }>(`select id from nodes where node_kind = 'webhook' order by id`)).rows.map((r) => r.id);
    const range = await c.query<{ lo: Date; hi: Date }>('select min(created_at) as lo, max(created_at) as hi from nodes');
    return { callers, words: words.rows.map((r) => r.w), webhooks, lo: range.rows[0]!.lo, hi: range.rows[0]!.hi };
  });
  const { callers, words, webhooks, lo, hi } = ids;
  const word = (from: number, to: number, i: number) => words[from + ((i * 37) % (to - from))]!;
  const day = 86_400_000;
  const at = (i: number) => new Date(lo.getTime() + ((i * 7.3 * day) % (hi.getTime() - lo.getTime() - 8 * day)));
  const cases: Case[] = [
    { name: 'newest first, no filter', query: () => ({ limit: 50 }) },
    { name: 'node_kind=webhook', query: () => ({ limit: 50, nodeKinds: ['webhook'] }) },
    { name: 'visibility=hidden (own rows)', query: () => ({ limit: 50, visibilities: ['hidden'] }) },
    { name: 'visibility=readable,open', query: () => ({ limit: 50, visibilities: ['readable', 'open'] }) },
    { name: 'collection', query: (c, i) => ({ limit: 50, collectionId: c.collections[i % c.collections.length]! }) },
    { name: 'created_by (a webhook)', query: (_c, i) => ({ limit: 50, createdBy: webhooks[i % webhooks.length]! }) },
    { name: 'created_at one week', query: (_c, i) => ({ limit: 50, createdFrom: at(i), createdBefore: new Date(at(i).getTime() + 7 * day) }) },
    { name: 'search: mid-frequency word', query: (_c, i) => ({ limit: 50, text: word(200, 600, i) }) },
    { name: 'search: rare word', query: (_c, i) => ({ limit: 50, text: word(2000, 5000, i) }) },
    { name: 'search: two words', query: (_c, i) => ({ limit: 50, text: `${word(20, 100, i)} ${word(100, 300, i + 1)}` }) },
    { name: 'search + collection', query: (c, i) => ({ limit: 50, text: word(50, 200, i), collectionId: c.collections[i % c.collections.length]! }) },
    { name: 'search: common word (top 10)', query: (_c, i) => ({ limit: 50, text: word(0, 10, i) }) },
    { name: 'search: phrase', query: (_c, i) => ({ limit: 50, text: `"${word(0, 10, i)} ${word(0, 10, i + 3)}"` }) },
    { name: 'search: common word, 2nd window', query: (_c, i) => ({ limit: 50, text: word(0, 10, i) }), deep: true },
  ];
  // BENCH_CASES=search runs only the cases whose name contains it.
  const only = process.env.BENCH_CASES;
  if (only) cases.splice(0, cases.length, ...cases.filter((c) => c.name.includes(only)));
  // Warm the cache once per case, then measure.
  for (const kase of cases) for (const caller of callers) await queryNodes(db, caller.id, kase.query(caller, 0)).catch(() => undefined);
  console.log(`\n${ITERATIONS} runs per caller and query (${callers.map((c) => `${c.label}: ${c.collections.length} collections`).join('; ')})`);
  console.log(
    `${'query'.padEnd(34)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'max ms'.padStart(8)} ${'rows'.padStart(6)}  ${callers.map((c) => `p95 ${c.label}`.padStart(12)).join(' ')}`,
  );
  for (const kase of cases) {
    const times: number[] = [];
    const byCaller = new Map<string, number[]>(callers.map((c) => [c.label, []]));
    let rows = 0;
    let cancelled = 0;
    // A search past SEARCH_TIMEOUT_MS is cancelled (the route answers 400); it counts at its time.
    const timed = async (caller: Caller, query: NodeQuery) => {
      const t = performance.now();
      try {
        const page = await queryNodes(db, caller.id, query);
        return page;
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        cancelled++;
        return undefined;
      } finally {
        times.push(performance.now() - t);
        byCaller.get(caller.label)!.push(performance.now() - t);
      }
    };
    const iterations = Math.min(ITERATIONS, kase.iterations ?? ITERATIONS);
    for (let i = 0; i < iterations; i++) {
      for (const caller of callers) {
        let query = kase.query(caller, i + 1);
        if (kase.deep) {
          // Walk to the last page of the first window untimed: the next page crosses windows.
          let after: NodeQuery['after'];
          for (let p = 0; p < 5; p++) after = (await queryNodes(db, caller.id, { ...query, limit: 100, after })).next ?? after;
          query = { ...query, after };
        }
        const page = await timed(caller, query);
        rows += page?.rows.length ?? 0;
        // The second page through the cursor costs the same as the first.
        if (i === 0 && page?.next && !kase.deep) await timed(caller, { ...query, after: page.next });
      }
    }
    const pct = (list: number[], p: number) => {
      const sorted = [...list].sort((a, b) => a - b);
      return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
    };
    console.log(
      `${kase.name.padEnd(34)} ${pct(times, 50).toFixed(2).padStart(8)} ${pct(times, 95).toFixed(2).padStart(8)} ${pct(times, 100).toFixed(2).padStart(8)} ${(rows / (iterations * callers.length)).toFixed(0).padStart(6)}  ${callers.map((c) => pct(byCaller.get(c.label)!, 95).toFixed(2).padStart(12)).join(' ')}${cancelled ? `  (${cancelled} of ${times.length} cancelled at ${SEARCH_TIMEOUT_MS} ms)` : ''}`,
    );
  }
  // What GET /metrics costs at this size: its pg_stats read with the exact count of node_access,
  // then as the API reads it (the count cached for a minute: the first call waits for it).
  for (const [label, read] of [
    ['metrics pg_stats read (5 runs)', () => readDatabaseStats(db)],
    ['metrics, count cached (5 runs)', cachedDatabaseStats(db)],
  ] as const) {
    const statTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t = performance.now();
      await read();
      statTimes.push(performance.now() - t);
    }
    statTimes.sort((a, b) => a - b);
    console.log(`${label.padEnd(34)} ${statTimes[2]!.toFixed(2).padStart(8)} ${statTimes[4]!.toFixed(2).padStart(8)}`);
  }
}

await main();
