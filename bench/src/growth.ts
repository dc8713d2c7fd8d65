/**
 * npm run bench:growth — the growth curves of issue 29, point 4 (docs/scaling.md), at one size.
 *
 * Against the seeded graph of bench:query (graph-seed.ts; BENCH_DB keeps it between runs,
 * BENCH_NODES its size, default a scratch database of 100,000 nodes), with the API as its own
 * process as in production and a local OpenID issuer for the callers' JWTs, measures one after
 * the other and prints one row each: webhook intake, initial_sync, /ws fan-out to 1,000
 * clients, listings, searches, a publication's front page, GET /metrics, and the database's
 * size. The scene it adds (growth-scene.ts) stays; the nodes its intakes wrote are deleted at
 * the end, so a kept database keeps its size.
 */
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { io } from 'socket.io-client';
import { withClient } from '@inntak/postgres';
import { renderPayload } from '@inntak/templates';
import { startTestIssuer } from '@inntak/test-support';
import { closeWsClients, connectWsClients } from './bench-ws.js';
import { collectionsOf, seededGraph } from './graph-seed.js';
import { growthObjects, growthPersons, largePublication, startApiProcess, subjectOf, type ApiClient, type GrowthScene } from './growth-scene.js';
import { databaseSizes, frontPageTimes, metricsTimes, printTable, publicSearchTimes, timed, type Row } from './growth-measures.js';

const INTAKES = Number(process.env.BENCH_INTAKES ?? 200);
const SYNCS = 20;
const FAN_OUT_CLIENTS = 1000;
const FAN_OUT_CHANGES = 20;
const READS = 20;
/** A real GitHub push, one commit (the templates' fixture from drone/go-scm); its ref names each delivery. */
const PUSH = JSON.parse(readFileSync(new URL('../../packages/templates/fixtures/forge-push/github-push-one_commit.json', import.meta.url), 'utf8')) as Record<string, unknown>;

const PUSH_HEADERS = { 'x-github-event': 'push' };

async function main(): Promise<void> {
  const graph = await seededGraph('inntak_bench_growth', 100_000);
  const issuer = await startTestIssuer();
  let api: ApiClient | undefined;
  let webhook: string | undefined;
  try {
    const persons = await withClient(graph.url, (c) => growthPersons(c, graph.url));
    api = await startApiProcess(graph.url, issuer);
    const objects = await withClient(graph.url, (c) => growthObjects(c, api!, persons));
    const scene: GrowthScene = { ...persons, ...objects };
    const large = await withClient(graph.url, (c) => largePublication(c, api!, persons.heavy));
    const words = await withClient(graph.url, async (c) => (await c.query<{ w: string }>('select w from bench_words order by k')).rows.map((r) => r.w));
    webhook = scene.webhook.id;
    const conditions = await withClient(graph.url, (c) =>
      c.query<{ nodes: string; access: string }>('select (select count(*) from nodes) as nodes, (select count(*) from node_access) as access'),
    );
    const loadBefore = loadavg();
    const started = performance.now();
    const rows = [
      ...(await intake(api, scene)),
      ...(await initialSync(api, scene)),
      ...(await fanOut(api, scene)),
      ...(await reads(api, scene, graph.url)),
      ...(await frontPageTimes(api, scene, graph.url)),
      ...(await publicSearchTimes(api, words, large.articles)),
      ...(await metricsTimes(api, scene)),
    ];
    const measuredS = (performance.now() - started) / 1000;
    const loadAfter = loadavg();
    const { nodes, access } = conditions.rows[0]!;
    console.log(`\n${graph.name}: ${Number(nodes).toLocaleString('en')} nodes, ${Number(access).toLocaleString('en')} access rows (seeded as ${graph.nodes.toLocaleString('en')})`);
    console.log(`${cpus().length} cores; load average ${fmtLoad(loadBefore)} before, ${fmtLoad(loadAfter)} after ${measuredS.toFixed(0)} s of measuring`);
    console.log(`heavy caller ${scene.heavy}, light ${scene.light}; intake collection ${scene.collection} (${scene.audience.length} persons with access)\n`);
    printTable(rows);
    console.log('');
    for (const line of await databaseSizes(graph.url, Number(nodes))) console.log(line);
    console.log('(sizes include the run\'s intake nodes, deleted after; with n = 20, p95 and p99 are the maximum)');
  } finally {
    await api?.stop();
    // The nodes this run's intakes wrote, so a kept database holds the same graph next time.
    if (webhook) await withClient(graph.url, (c) => c.query('delete from nodes where created_by = $1', [webhook]));
    await issuer.close();
    await graph.done();
  }
}

const fmtLoad = (load: number[]) => load.map((l) => l.toFixed(2)).join(' ');

/** One delivery of the push fixture; `ref` makes its node's title unique (the title names the branch). */
async function deliver(api: ApiClient, scene: GrowthScene, ref: string): Promise<void> {
  const res = await fetch(`${api.url}/api/webhook/${scene.webhook.token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...PUSH_HEADERS },
    body: JSON.stringify({ ...PUSH, ref }),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`intake answered ${res.status}`);
}

async function intake(api: ApiClient, scene: GrowthScene): Promise<Row[]> {
  const times = await timed(INTAKES, (i) => deliver(api, scene, `refs/heads/intake-${i}`), 20);
  return [{ measure: 'intake POST /api/webhook (push)', times, note: `sequential, one collection with ${scene.audience.length} access rows` }];
}

async function initialSync(api: ApiClient, scene: GrowthScene): Promise<Row[]> {
  const rows: Row[] = [];
  for (const [label, person] of [['heavy', scene.heavy], ['light', scene.light]] as const) {
    const token = await api.token(subjectOf(person));
    const times = await timed(SYNCS, async () => {
      const socket = io(api.url, { path: '/ws', transports: ['websocket'], reconnection: false, forceNew: true, auth: { token } });
      try {
        await new Promise<void>((resolve, reject) => {
          socket.once('initial_sync', () => resolve());
          socket.once('connect_error', reject);
        });
      } finally {
        socket.close();
      }
    });
    rows.push({ measure: `initial_sync, ${label} caller`, times, note: 'connect → event, new connection each' });
  }
  return rows;
}

/** 1,000 clients of the persons who can see the webhook's collection; per intake, insert → the last client's receipt. */
async function fanOut(api: ApiClient, scene: GrowthScene): Promise<Row[]> {
  const personTokens = await Promise.all(scene.audience.map((p) => api.token(subjectOf(p))));
  const tokens = Array.from({ length: FAN_OUT_CLIENTS }, (_, i) => personTokens[i % personTokens.length]!);
  const clients = await connectWsClients(api.url, tokens, 1);
  try {
    const last: number[] = [];
    const each: number[] = [];
    for (let i = -2; i < FAN_OUT_CHANGES; i++) {
      const ref = `refs/heads/fanout-${Date.now()}-${i}`;
      // The clients know a change by its node's title: the template renders it as the intake will.
      const received = clients.deliveredToAll(renderPayload('forge-push', { ...PUSH, ref }, PUSH_HEADERS).result!.title);
      const t0 = Date.now();
      await deliver(api, scene, ref);
      // A client that missed it (told to resync instead) would leave this waiting: fail instead.
      const result = await Promise.race([
        received,
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${ref} did not reach all ${FAN_OUT_CLIENTS} clients in 60 s`)), 60_000).unref()),
      ]);
      if (i < 0) continue; // warm-up
      last.push(result.last - t0);
      each.push(...result.latencies);
    }
    return [
      { measure: `/ws fan-out, last of ${FAN_OUT_CLIENTS} clients`, times: last, note: `POST → last receipt; connecting took ${(clients.connectMs / 1000).toFixed(1)} s` },
      { measure: '/ws fan-out, each delivery', times: each, note: "the event's `at` → receipt, per client" },
    ];
  } finally {
    await closeWsClients(clients.worker);
  }
}

/** Listings and searches over HTTP as the heavy and the light caller (as bench:query's cases, through the route). */
async function reads(api: ApiClient, scene: GrowthScene, url: string): Promise<Row[]> {
  const { words, collections } = await withClient(url, async (c) => ({
    words: (await c.query<{ w: string }>('select w from bench_words order by k')).rows.map((r) => r.w),
    collections: { [scene.heavy]: await collectionsOf(c, scene.heavy), [scene.light]: await collectionsOf(c, scene.light) },
  }));
  const word = (from: number, to: number, i: number) => words[from + ((Math.abs(i) * 37) % (to - from))]!;
  const cases: Array<[string, (i: number, person: string) => string]> = [
    ['listing: newest first', () => '/query/nodes?limit=50'],
    ['listing: one collection', (i, person) => `/query/nodes?limit=50&collection=${collections[person]![Math.abs(i) % collections[person]!.length]}`],
    ['search: common word (top 10)', (i) => `/query/nodes?limit=50&q=${word(0, 10, i)}`],
    ['search: mid-frequency word', (i) => `/query/nodes?limit=50&q=${word(200, 600, i)}`],
  ];
  const rows: Row[] = [];
  for (const [name, path] of cases) {
    for (const [label, person] of [['heavy', scene.heavy], ['light', scene.light]] as const) {
      const times = await timed(READS, (i) => api.get(subjectOf(person), path(i, person)));
      rows.push({ measure: `${name}, ${label}`, times, note: 'GET /query/nodes, limit 50' });
    }
  }
  return rows;
}

await main();
