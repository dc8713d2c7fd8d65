import { sql, type RawBuilder } from 'kysely';
import type { Keyset, NodeQuery, SearchWindow, Visibility } from '@inntak/graph';
import { AppError } from '@inntak/core';
import type { Db } from '../platform/index.js';

/**
 * The ranked search of GET /query/nodes at any size (issue 29; docs/query.md, "Order and
 * paging").
 *
 * Ranking every match costs time per match, and a common word matches most of the graph. So a
 * search ranks a **window**: the `window` newest visible matches (by id, i.e. creation order).
 * Pages run through the window by (rank, id) descending; after its last row the next window
 * begins below the window's oldest match, and so on until no match is left. Each visible match
 * is therefore returned exactly once, best first within its window, and newer windows first.
 *
 * The window is the union of four disjoint parts of the read filter, each read newest first
 * from an index that carries its visibility (db/migrations/025), and each stopping once it has
 * a window's worth: so a window costs about its size however many nodes match, and a rare word
 * is read from the GIN index instead — the planner picks by the word's frequency.
 */
export interface WindowOptions {
  /** Matches ranked together (default SEARCH_WINDOW). */
  window: number;
  /** Nodes a walked window covers at most (default SEARCH_SPAN). */
  span?: number;
  /** Read every part one way whatever the words' frequency (tests cover both ways with it). */
  strategy?: 'walk' | 'bitmap';
}

/** How many of the newest matches are ranked together. */
export const SEARCH_WINDOW = 500;

export interface WindowedPage {
  rows: Array<{ id: string; rank: string; window: SearchWindow }>;
  /** Where the next page starts, when more matches may follow. */
  next?: Keyset;
}

interface WindowRow {
  id: string;
  full_view: boolean;
  rank: string;
}

/**
 * Words in at least this many nodes are searched in spans: a window then also stops at the
 * SEARCH_SPAN-th newest node, so it costs at most a span's rows even when the words are rarely
 * in a visible node (a phrase of common words, a caller who sees little). A count, not a share:
 * a bitmap costs its matches, which grow with the graph, while a span costs the same at any
 * size (measured: a word in 1 % of 5 M nodes took 89 ms p95 from bitmaps, 2 % of 1 M 25 ms).
 */
const SPAN_MATCHES = 20_000;
/** Nodes one walked window covers at most. */
export const SEARCH_SPAN = 20_000;
/**
 * Members one walked window of a collection covers at most: each is a probe of node_search by
 * id (about 4 µs), where a span of all nodes is read in index order.
 */
export const COLLECTION_SPAN = 2_000;
/**
 * Windows one page reads at most. A page short of its limit then ends with a cursor past the
 * last window read, so a search whose words are rare among what the caller sees still costs a
 * bounded time per request; the client pages on.
 */
const WINDOWS_PER_PAGE = 2;
/** Below every row of a window: a keyset that resumes after the window's last row. */
const PAST_WINDOW = { id: '00000000-0000-0000-0000-000000000000', rank: '0' };

/**
 * The ids (and ranks) of the next `take` matches after `after`, crossing into older windows as
 * needed. Runs inside the caller's transaction (which carries the statement timeout).
 */
export async function searchWindows(db: Db, callerId: string, query: NodeQuery, text: string, take: number, options: WindowOptions): Promise<WindowedPage> {
  const rows: WindowedPage['rows'] = [];
  const estimate = await estimateOf(db, text);
  // A collection or a creator narrows the matches to a few nodes the planner reaches from
  // their own index (edges of the collection, node_search_created_by_idx): spans of all nodes
  // would hold almost none of them, and walking would pass every other node. A collection's
  // common words are walked in the collection itself instead, newest member first, in spans of
  // its own members (collectionPart).
  const narrowed = query.collectionId !== undefined || query.createdBy !== undefined;
  const strategy = options.strategy ?? (narrowed ? 'bitmap' : undefined);
  const walk = options.strategy
    ? options.strategy === 'walk'
    : (query.collectionId !== undefined || query.createdBy === undefined) && estimate.documents >= SPAN_MATCHES;
  const defaultSpan = query.collectionId === undefined ? SEARCH_SPAN : COLLECTION_SPAN;
  const span = options.span ?? defaultSpan;
  // A cursor names its window by its id range, so the window reads back the same rows whatever
  // was written since or however common the words have become; a new window starts below the
  // last one's floor (or at the newest match).
  let after: Keyset | undefined = query.after;
  let known: SearchWindow | undefined = after?.window;
  let below: string | undefined;
  for (let windows = 1; ; windows++) {
    const reader: WindowReader = { db, callerId, query, text, size: options.window, estimate, strategy };
    const { window, found } = known
      ? { window: known, found: await readWindow(reader, known.walk, { top: known.top, floor: known.floor ?? undefined }) }
      : await newWindow(reader, below, walk ? span : undefined);
    const start = after ? found.findIndex((r) => isAfter(r, after!)) : 0;
    for (const r of start < 0 ? [] : found.slice(start)) {
      if (rows.length === take) return { rows, next: nextAfter(rows) };
      rows.push({ id: r.id, rank: r.rank, window });
    }
    if (window.floor === null) return { rows };
    if (rows.length === take || windows === WINDOWS_PER_PAGE) return { rows, next: rows.length === take ? nextAfter(rows) : { ...PAST_WINDOW, window } };
    below = window.floor;
    known = undefined;
    after = undefined;
  }
}

function nextAfter(rows: WindowedPage['rows']): Keyset {
  const last = rows[rows.length - 1]!;
  return { id: last.id, rank: last.rank, window: last.window };
}

interface WindowReader {
  db: Db;
  callerId: string;
  query: NodeQuery;
  text: string;
  size: number;
  estimate: Estimate;
  strategy: WindowOptions['strategy'];
}

/**
 * The next window below `below` (or from the newest match): its newest match, its floor (the
 * window-th newest match, or the span's oldest node, whichever is newer; null when nothing
 * older is left) and how it is read.
 */
async function newWindow(reader: WindowReader, below: string | undefined, span: number | undefined): Promise<{ window: SearchWindow; found: WindowRow[] }> {
  let spanFloor: string | null | undefined;
  const collection = reader.query.collectionId;
  if (span !== undefined) {
    const { rows } = collection
      ? await sql<{ id: string }>`select m.source_id as id from edges m where m.target_id = ${collection} and m.edge_type = 'belongs_to'
          ${below ? sql`and m.source_id < ${below}::uuid` : sql``} order by m.source_id desc offset ${span - 1} limit 1`.execute(reader.db)
      : await sql<{ id: string }>`select s.node_id as id from node_search s
          ${below ? sql`where s.node_id < ${below}::uuid` : sql``} order by s.node_id desc offset ${span - 1} limit 1`.execute(reader.db);
    spanFloor = rows[0]?.id ?? null;
  }
  const found = await readWindow(reader, span !== undefined, { below, floor: spanFloor ?? undefined });
  const ids = found.map((r) => r.id).sort();
  // An empty window reads back as its span's floor alone (a cursor past it, WINDOWS_PER_PAGE),
  // which did not match.
  const top = ids[ids.length - 1] ?? spanFloor ?? '00000000-0000-0000-0000-000000000000';
  const floor = ids.length >= reader.size ? ids[0]! : span !== undefined ? (spanFloor ?? null) : null;
  return { window: { top, floor, walk: span !== undefined }, found };
}

/** (rank, id) strictly after the keyset in descending order. float4 texts compare as numbers. */
function isAfter(row: WindowRow, after: Keyset): boolean {
  const rank = Number(row.rank);
  const afterRank = Number(after.rank ?? '0');
  return rank < afterRank || (rank === afterRank && row.id < after.id);
}

/**
 * Below this share of nodes matching, a part's matches are read from a bitmap of the GIN index
 * and sorted; above it, the part is walked newest first until a window is full. Walking costs
 * about window / share rows, the bitmap share × part rows: measured at 1 M nodes, a walked row
 * costs a sixth of a bitmap row, which puts the crossing near 2 % for a part of a fifth of the
 * nodes. Reaching hidden rows through the caller's access rows costs more per row, hence 5 %.
 */
const WALK_SHARE = { shown: 0.02, accessed: 0.05, summary: 0.02 } as const;

interface Estimate {
  documents: number;
  titles: number;
  total: number;
  phrase: boolean;
}

/**
 * The matches in a range of ids, ranked best first: at most `size`, the newest. `below` is
 * exclusive, `top` and `floor` inclusive. `walkAll` walks every part (a span is bounded).
 */
async function readWindow(
  reader: WindowReader,
  walkAll: boolean,
  range: { below?: string; top?: string; floor?: string },
): Promise<WindowRow[]> {
  const { db, callerId, query, text, size, estimate } = reader;
  const terms = sql`websearch_to_tsquery('simple', ${text})`;
  const strategy = walkAll ? 'walk' : reader.strategy;
  const parts =
    walkAll && query.collectionId !== undefined
      ? [collectionPart(callerId, terms, query.collectionId)]
      : searchParts(callerId, terms, estimate, strategy).filter((p) => !query.visibilities || p.visibilities.some((v) => query.visibilities!.includes(v)));
  const found: WindowRow[] = [];
  // Once the parts read so far hold a window's worth, the window cannot reach below the
  // window-th newest of them: the parts after are read down to it and no further.
  let floor = range.floor;
  for (const part of parts) {
    const clauses: RawBuilder<boolean>[] = [part.where, ...filters(query, part.inCollection)];
    const bound = part.bound ?? ((op: string, id: string) => sql<boolean>`${part.orderKey} ${sql.raw(op)} ${id}::uuid`);
    if (range.top) clauses.push(bound('<=', range.top));
    if (range.below) clauses.push(bound('<', range.below));
    if (floor) clauses.push(bound('>=', floor));
    const full = part.full === 'per row' ? sql`v.full_view` : sql.lit(part.full);
    const document = part.full === 'per row' ? sql`case when v.full_view then s.document else s.title_document end` : part.full ? sql`s.document` : sql`s.title_document`;
    const rank = sql`ts_rank(${document}, ${terms})::text`;
    const where = sql.join(clauses, sql` and `);
    // Walking: the index's order, stopping at a window. Bitmap: `offset 0` keeps the planner
    // from walking (it underrates a text match per row); the few matches are sorted after.
    // A node may belong to a collection by more than one edge: a walk of its members takes
    // each once (`distinct on` keeps the walk's order), so a window's limit counts nodes.
    const read = part.walk
      ? sql<WindowRow>`select ${part.inCollection ? sql`distinct on (${part.orderKey})` : sql``} s.node_id as id, ${full} as full_view, ${rank} as rank
          from ${part.from} where ${where} order by ${part.orderKey} desc limit ${size}`
      : sql<WindowRow>`select p.id, p.full_view, p.rank from (select s.node_id as id, ${full} as full_view, ${rank} as rank
          from ${part.from} where ${where} offset 0) p order by p.id desc limit ${size}`;
    found.push(...(await read.execute(db)).rows);
    if (found.length >= size) {
      found.sort((a, b) => (a.id < b.id ? 1 : -1));
      found.length = size;
      floor = found[size - 1]!.id;
    }
  }
  // The window: the newest `size` of the parts' matches (the parts are disjoint), best first.
  const window = found.sort((a, b) => (a.id < b.id ? 1 : -1)).slice(0, size);
  return window.sort((a, b) => Number(b.rank) - Number(a.rank) || (a.id < b.id ? 1 : -1));
}

/** How common the words are, from the planner's statistics (db/migrations/025). */
async function estimateOf(db: Db, text: string): Promise<Estimate> {
  const { rows } = await sql<Estimate>`select e.*, q::text like '%<->%' as phrase
    from websearch_to_tsquery('simple', ${text}) q, inntak_search_estimate(q) e`.execute(db);
  return rows[0]!;
}

interface SearchPart {
  visibilities: readonly Visibility[];
  from: RawBuilder<unknown>;
  where: RawBuilder<boolean>;
  orderKey: RawBuilder<string>;
  /** The caller sees this part's nodes whole (else as a summary: title only), or per row (`v.full_view`). */
  full: boolean | 'per row';
  /** Walk newest first (common words) rather than read a bitmap of the matches (rare words). */
  walk: boolean;
  /** The part reads the query's collection itself (no filter for it needed). */
  inCollection?: boolean;
  /** The window's bounds on orderKey, where they must be written for one index (default: on orderKey). */
  bound?: (op: '<=' | '<' | '>=', id: string) => RawBuilder<boolean>;
}

/**
 * The words as a condition on a document. Walked, the match is checked per row in the walk's
 * order: `is true` keeps it out of the GIN index (a planner that estimates a phrase of common
 * words as rare would read both words' whole posting lists, which grow with the graph, instead
 * of the span's rows, which do not; measured at 5 M nodes: 64 ms in the GIN index alone).
 */
function matching(document: RawBuilder<unknown>, terms: RawBuilder<unknown>, walk: boolean): RawBuilder<boolean> {
  return walk ? sql<boolean>`(${document} @@ ${terms}) is true` : sql<boolean>`${document} @@ ${terms}`;
}

/**
 * A collection's common words: its members walked newest first (edges_target_type_source_idx,
 * whose source ids are in creation order), each node's whole read filter decided on its row at
 * once — a probe per member, instead of one per member and part.
 */
function collectionPart(callerId: string, terms: RawBuilder<unknown>, collectionId: string): SearchPart {
  const reader = sql`inntak_reader_lexeme(${callerId}::uuid)::tsquery`;
  return {
    visibilities: ['readable', 'open', 'hidden', 'discoverable'],
    from: sql`edges m join node_search s on s.node_id = m.source_id
      cross join lateral (select coalesce(s.visibility in ('readable', 'open') or s.created_by = ${callerId} or s.readers @@ ${reader}, false) as full_view) v`,
    where: sql<boolean>`m.target_id = ${collectionId} and m.edge_type = 'belongs_to'
      and ((v.full_view and ${matching(sql`s.document`, terms, true)})
        or (not v.full_view and s.visibility = 'discoverable' and ${matching(sql`s.title_document`, terms, true)}))`,
    orderKey: sql<string>`m.source_id`,
    full: 'per row',
    walk: true,
    inCollection: true,
  };
}

/**
 * The read filter (read-filter.ts, fullViewOf / summaryViewOf) over node_search's copied
 * visibility, creator and readers, split so each part has an index in id order and one of its
 * matches: readable/open nodes (node_search_shown_idx, node_search_shown_document_idx); the
 * caller's own hidden or discoverable nodes (node_search_created_by_idx); others' hidden or
 * discoverable nodes the caller has an access row on (walked from node_access's key, or
 * node_search_readers_document_idx ANDed with the words); others' discoverable nodes without one, by
 * title (node_search_discoverable_idx, node_search_discoverable_title_idx).
 */
function searchParts(callerId: string, terms: RawBuilder<unknown>, estimate: Estimate, strategy: WindowOptions['strategy']): SearchPart[] {
  const forced = strategy === undefined ? undefined : strategy === 'walk' ? 1 : 0;
  // The statistics estimate a phrase as its words ANDed; adjacent they are far rarer (about a
  // tenth for common words in the 1 M bench), and walking for a rare phrase is the costly error.
  const phrase = estimate.phrase ? 10 : 1;
  const documentShare = forced ?? estimate.documents / estimate.total / phrase;
  const titleShare = forced ?? estimate.titles / estimate.total / phrase;
  const reader = sql`inntak_reader_lexeme(${callerId}::uuid)::tsquery`;
  const walkAccess = documentShare >= WALK_SHARE.accessed;
  const walkShown = documentShare >= WALK_SHARE.shown;
  const walkSummary = titleShare >= WALK_SHARE.summary;
  const others = sql<boolean>`s.visibility in ('hidden', 'discoverable') and s.created_by is distinct from ${callerId}`;
  return [
    {
      visibilities: ['readable', 'open'],
      from: sql`node_search s`,
      where: sql<boolean>`s.visibility in ('readable', 'open') and ${matching(sql`s.document`, terms, walkShown)}`,
      orderKey: sql<string>`s.node_id`,
      full: true,
      walk: walkShown,
    },
    {
      visibilities: ['hidden', 'discoverable'],
      from: sql`node_search s`,
      where: sql<boolean>`s.created_by = ${callerId} and s.visibility in ('hidden', 'discoverable') and ${matching(sql`s.document`, terms, walkShown)}`,
      orderKey: sql<string>`s.node_id`,
      full: true,
      walk: walkShown,
    },
    {
      visibilities: ['discoverable'],
      from: sql`node_search s`,
      where: sql<boolean>`s.visibility = 'discoverable' and s.created_by is distinct from ${callerId}
        and ${matching(sql`s.title_document`, terms, walkSummary)} and not (s.readers @@ ${reader})`,
      orderKey: sql<string>`s.node_id`,
      full: false,
      walk: walkSummary,
    },
    walkAccess
      ? {
          visibilities: ['hidden', 'discoverable'],
          // A probe per access row in the walk's order (`offset 0` keeps the lateral a nested
          // loop): with the words kept out of GIN, the planner's other choice for a caller with
          // many rows is a merge join over a sequential scan of node_search (1.3 s at 5 M nodes).
          from: sql`node_access acc cross join lateral (select * from node_search s where s.node_id = acc.object_id offset 0) s`,
          where: sql<boolean>`acc.subject_id = ${callerId} and ${others} and ${matching(sql`s.document`, terms, true)}`,
          orderKey: sql<string>`acc.object_id`,
          // The upper bound as a row comparison fits only node_access's key (subject, object):
          // both bounds on object_id let the planner walk every subject's rows in the window by
          // node_access_object_idx (measured at 5 M nodes: 60,000 rows for the caller's 40, 89
          // ms). The lower bound stays plain: as a row comparison it ends a backward scan late
          // (3× the pages, 12 ms for 1,000 rows against 0.4).
          bound: (op, id) =>
            op === '>=' ? sql<boolean>`acc.object_id >= ${id}::uuid` : sql<boolean>`(acc.subject_id, acc.object_id) ${sql.raw(op)} (${callerId}::uuid, ${id}::uuid)`,
          full: true,
          walk: true,
        }
      : {
          visibilities: ['hidden', 'discoverable'],
          from: sql`node_search s`,
          where: sql<boolean>`s.readers @@ ${reader} and ${others} and s.document @@ ${terms}`,
          orderKey: sql<string>`s.node_id`,
          full: true,
          walk: false,
        },
  ];
}

/** The query's own filters on a part's row `s` (node columns through `nodes`). */
function filters(query: NodeQuery, inCollection = false): RawBuilder<boolean>[] {
  const clauses: RawBuilder<boolean>[] = [];
  if (query.visibilities) clauses.push(sql<boolean>`s.visibility = any(${query.visibilities}::visibility[])`);
  if (query.createdBy) clauses.push(sql<boolean>`s.created_by = ${query.createdBy}`);
  const node: RawBuilder<boolean>[] = [];
  if (query.nodeKinds) node.push(sql<boolean>`n.node_kind = any(${query.nodeKinds}::text[])`);
  if (query.createdFrom) node.push(sql<boolean>`n.created_at >= ${query.createdFrom}`);
  if (query.createdBefore) node.push(sql<boolean>`n.created_at < ${query.createdBefore}`);
  if (node.length > 0) clauses.push(sql<boolean>`exists (select 1 from nodes n where n.id = s.node_id and ${sql.join(node, sql` and `)})`);
  if (query.collectionId && !inCollection) {
    clauses.push(sql<boolean>`exists (select 1 from edges m
      where m.target_id = ${query.collectionId} and m.edge_type = 'belongs_to' and m.source_id = s.node_id)`);
  }
  return clauses;
}

/** A search still running at the statement timeout answers 400 (the safety net; see node-query.ts). */
export function searchCancelled(err: unknown): never {
  if ((err as { code?: unknown }).code === '57014') {
    throw new AppError('invalid_input', { cause: err, detail: 'q: treffer for mange noder til å rangeres i tide; legg til ord eller filtre' });
  }
  throw err;
}
