/**
 * npm run bench:query — GET /query/nodes at 1 M nodes and 3 M access rows.
 *
 * Makes a scratch database `inntak_bench_query` on DATABASE_URL's server (else the machine's
 * postgres://postgres@127.0.0.1:5432, else an embedded one), migrates it, seeds it with
 * set-based SQL, runs typical queries through the route's own queryNodes for a heavy, a light
 * and a nearly unconnected caller, prints p50/p95 per query type, and drops the database.
 *
 * Seed shape: graph-seed.ts (1 M nodes by default: ~997,000 content nodes in 500 collections,
 * three access rows each).
 */
import { performance } from 'node:perf_hooks';
import type { NodeQuery } from '@inntak/graph';
import { AppError } from '@inntak/core';
import { cachedDatabaseStats, openDatabase, readDatabaseStats, withClient, type Db } from '@inntak/postgres';
import { queryNodes, SEARCH_TIMEOUT_MS } from '@inntak/postgres/graph';
import { collectionsOf, seedCallers, seededGraph } from './graph-seed.js';

// BENCH_DB / BENCH_NODES: a kept seeded database (graph-seed.ts).
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 20);
const quiet = { error() {}, warn() {}, info() {}, debug() {} };

async function main(): Promise<void> {
  const graph = await seededGraph('inntak_bench_query', 1_000_000);
  try {
    const t = performance.now();
    const handle = openDatabase({ connectionString: graph.url, logger: quiet, max: 2 });
    try {
      await run(handle.db, graph.url);
    } finally {
      await handle.close();
    }
    console.log(`measured in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  } finally {
    await graph.done();
  }
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
    const { heavy, light, none } = await seedCallers(c);
    const anyCollections = (await c.query<{ id: string }>(`select id from nodes where node_kind = 'collection' order by id limit 10`)).rows.map(
      (r) => r.id,
    );
    const callers: Caller[] = [
      { label: 'heavy', id: heavy, collections: await collectionsOf(c, heavy) },
      { label: 'light', id: light, collections: await collectionsOf(c, light) },
      { label: 'no rows', id: none, collections: anyCollections },
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
