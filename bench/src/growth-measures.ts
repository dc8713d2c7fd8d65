import { performance } from 'node:perf_hooks';
import { withClient } from '@inntak/postgres';
import { percentile } from './bench-database.js';
import { subjectOf, type ApiClient, type GrowthScene } from './growth-scene.js';

/** bench:growth's table: one row per measure. */
export interface Row {
  measure: string;
  /** Milliseconds, any order. */
  times: number[];
  note?: string;
}

const FRONT_PAGE_HITS = 100;
const FRONT_PAGE_TOGGLES = 10;

/** Runs `body` `n` times after `warmUp` untimed runs (given negative indexes); the times in ms. */
export async function timed(n: number, body: (i: number) => Promise<unknown>, warmUp = 1): Promise<number[]> {
  for (let i = 0; i < warmUp; i++) await body(-1 - i);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await body(i);
    times.push(performance.now() - t);
  }
  return times;
}

export function printTable(rows: Row[]): void {
  const cell = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(1)).padStart(8);
  console.log(`${'measure'.padEnd(38)} ${'p50 ms'.padStart(8)} ${'p95 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)} ${'n'.padStart(6)}  how`);
  for (const row of rows) {
    const sorted = [...row.times].sort((a, b) => a - b);
    console.log(
      `${row.measure.padEnd(38)} ${cell(percentile(sorted, 50))} ${cell(percentile(sorted, 95))} ${cell(percentile(sorted, 99))} ${cell(sorted[sorted.length - 1]!)} ${String(sorted.length).padStart(6)}  ${row.note ?? ''}`,
    );
  }
}

/**
 * The publication's front page, anonymous. Cached: repeated GETs of a page the API holds.
 * Uncached: the newest article is unpublished and published again through the API; each change
 * reaches the page cache through the change stream a moment later, so the page is polled and
 * the first answer that shows the change is timed: it was loaded and rendered for that request
 * (the answers before it were the old page, from the cache).
 */
export async function frontPageTimes(api: ApiClient, scene: GrowthScene, url: string): Promise<Row[]> {
  const path = `/pub/${scene.publication.slug}`;
  const cached = await timed(FRONT_PAGE_HITS, () => api.get(undefined, path), 5);
  const newest = await withClient(url, (c) =>
    c.query<{ article: string; edge: string }>(
      `select source_id as article, id as edge from edges where target_id = $1 and edge_type = 'published_in' order by created_at desc, id desc limit 1`,
      [scene.publication.id],
    ),
  );
  const { article } = newest.rows[0]!;
  let edge = newest.rows[0]!.edge;
  const heavy = subjectOf(scene.heavy);
  const link = `/artikkel/${article}`;
  const uncached: number[] = [];
  let polls = 0;
  const firstFresh = async (fresh: (html: string) => boolean) => {
    for (let i = 0; i < 10_000; i++, polls++) {
      const t = performance.now();
      const { text } = await api.get(undefined, path);
      if (fresh(text)) return uncached.push(performance.now() - t);
    }
    throw new Error(`${path} never showed the change`);
  };
  for (let i = 0; i < FRONT_PAGE_TOGGLES; i++) {
    await api.post(heavy, '/intentions/unpublish_article', { edge_id: edge });
    await firstFresh((html) => !html.includes(link));
    edge = (await api.post<{ edge_id: string }>(heavy, '/intentions/publish_article', { publication_id: scene.publication.id, node_id: article })).edge_id;
    await firstFresh((html) => html.includes(link));
  }
  return [
    { measure: 'front page /pub/{slug}, cached', times: cached, note: 'anonymous, repeated GET' },
    {
      measure: 'front page /pub/{slug}, uncached',
      times: uncached,
      note: `first GET showing an (un)publish; ${(polls / uncached.length).toFixed(1)} cached GETs before each`,
    },
  ];
}

/** GET /metrics as a system administrator: the first call (it waits for node_access's count), then 5. */
export async function metricsTimes(api: ApiClient, scene: GrowthScene): Promise<Row[]> {
  const first = await timed(1, () => api.get(scene.admin, '/metrics'), 0);
  const times = await timed(5, () => api.get(scene.admin, '/metrics'), 0);
  return [
    { measure: 'GET /metrics, first call', times: first, note: 'as an admin; counts node_access' },
    { measure: 'GET /metrics, next 5', times, note: 'count cached for a minute' },
  ];
}

/** The database's size and its four big tables' (with their indexes), and per million nodes. */
export async function databaseSizes(url: string, nodes: number): Promise<string[]> {
  const mb = (bytes: string | number) => `${(Number(bytes) / 2 ** 20).toFixed(0)} MB`;
  return withClient(url, async (c) => {
    const db = (await c.query<{ size: string }>('select pg_database_size(current_database()) as size')).rows[0]!.size;
    const tables = await c.query<{ name: string; total: string; indexes: string; live: string; dead: string }>(`
      select t.relname as name, pg_total_relation_size(t.relid) as total, pg_indexes_size(t.relid) as indexes,
             t.n_live_tup as live, t.n_dead_tup as dead
        from pg_stat_user_tables t where t.relname in ('nodes', 'node_search', 'node_access', 'edges')
       order by pg_total_relation_size(t.relid) desc`);
    const indexes = await c.query<{ name: string; size: string }>(`
      select indexrelname as name, pg_relation_size(indexrelid) as size from pg_stat_user_indexes
       order by pg_relation_size(indexrelid) desc limit 6`);
    const perMillion = (bytes: string | number) => `${((Number(bytes) / 2 ** 30) * (1e6 / nodes)).toFixed(2)} GB per million nodes`;
    return [
      `database ${mb(db)} (${perMillion(db)})`,
      ...tables.rows.map(
        (t) => `  ${t.name.padEnd(12)} ${mb(t.total).padStart(9)}, of it indexes ${mb(t.indexes).padStart(8)}  (${perMillion(t.total)}; ${Number(t.dead).toLocaleString('en')} dead rows)`,
      ),
      `  biggest indexes: ${indexes.rows.map((i) => `${i.name} ${mb(i.size)}`).join(', ')}`,
    ];
  });
}

/**
 * GET /pub/{slug}/sok of the large publication, anonymously, as bench:query's search classes
 * (words of bench_words by frequency rank), the first page and deeper ones: page 26 starts the
 * second window of 500 matches, page 50 is the fourth window's. A page past a search's last
 * match answers 404 after the same work; the note counts them.
 */
export async function publicSearchTimes(api: ApiClient, words: string[], articles: number): Promise<Row[]> {
  const word = (from: number, to: number, i: number) => words[from + ((Math.abs(i) * 37) % (to - from))]!;
  const common = (i: number) => word(0, 10, i);
  const cases: Array<[string, (i: number) => string, number]> = [
    ['common word (top 10)', common, 1],
    ['mid-frequency word', (i) => word(200, 600, i), 1],
    ['rare word', (i) => word(2000, 5000, i), 1],
    ['two words', (i) => `${word(20, 100, i)} ${word(100, 300, i + 1)}`, 1],
    ['phrase', (i) => `"${word(0, 10, i)} ${word(0, 10, i + 3)}"`, 1],
    ['common word, page 26', common, 26],
    ['common word, page 50', common, 50],
  ];
  const rows: Row[] = [];
  for (const [name, q, page] of cases) {
    let missing = 0;
    const times = await timed(20, async (i) => {
      const res = await fetch(`${api.url}/pub/storposten/sok?q=${encodeURIComponent(q(i))}${page > 1 ? `&side=${page}` : ''}`);
      await res.text();
      if (res.status === 404) missing++;
      else if (res.status !== 200) throw new Error(`/sok: ${res.status}`);
    });
    const past = missing > 0 ? `; ${missing} past the last match (404)` : '';
    rows.push({ measure: `public search: ${name}`, times, note: `GET /pub/{slug}/sok, ${articles.toLocaleString('en')} articles${past}` });
  }
  return rows;
}
