import { sql, type RawBuilder } from 'kysely';
import type { EdgePage, GraphNode, NodeQuery, NodeQueryPage, NodeQueryStore, NodeRead, QueriedNode } from '@inntak/graph';
import type { Db, ReadOn } from '../platform/index.js';
import { accessLevelOf, visibleNodeParts } from './read-filter.js';
import { readNode } from './node-reads.js';
import { searchCancelled, searchWindows, SEARCH_WINDOW } from './node-search.js';

/**
 * GET /query/nodes on PostgreSQL (indexes: db/migrations/005.do.query.sql).
 *
 * A listing is newest first (id descending: UUIDv7 is creation order). It is the union of the
 * read filter's three disjoint parts, each read from an index in id order and cut at a page,
 * so the cost follows the page size, not the table. A search ranks windows of the newest
 * visible matches (node-search.ts) and reads the page's nodes by id.
 */
export async function queryNodes(db: Db, callerId: string, query: NodeQuery, options: QueryOptions = {}): Promise<NodeQueryPage> {
  const take = query.limit + 1;
  if (query.text !== undefined) return search(db, callerId, query, query.text, take, options);
  const found = await listing(db, callerId, query, take);
  const more = found.length > query.limit;
  const rows = more ? found.slice(0, query.limit) : found;
  const last = rows[rows.length - 1];
  return {
    rows,
    next: more && last ? { id: last.node.id, ...(last.rank === undefined ? {} : { rank: last.rank }) } : undefined,
  };
}

export interface QueryOptions {
  /** A search still ranking after this long is cancelled (default SEARCH_TIMEOUT_MS). */
  searchTimeoutMs?: number;
  /** How many of the newest matches a search ranks together (default SEARCH_WINDOW). */
  searchWindow?: number;
  /** How many nodes a walked search window covers at most (default SEARCH_SPAN). */
  searchSpan?: number;
  /** Tests: read a search's parts one way whatever its words' frequency (node-search.ts). */
  searchStrategy?: 'walk' | 'bitmap';
}

/**
 * A safety net: a search ranks a bounded window (node-search.ts), so it should never run this
 * long; if the database is starved it is cancelled and answered 400 (add words or filters)
 * rather than left to hold a connection for seconds.
 */
export const SEARCH_TIMEOUT_MS = 2_000;

export class PostgresNodeQueryStore implements NodeQueryStore {
  constructor(
    private readonly db: Db,
    private readonly options: QueryOptions = {},
    /** Where each read runs (a replica, ReadReplicas.read: the primary again if the replica fails it); absent: `db`. */
    private readonly read: ReadOn = (fn) => fn(db),
  ) {}

  queryNodes(callerId: string, query: NodeQuery): Promise<NodeQueryPage> {
    return this.read((db) => queryNodes(db, callerId, query, this.options));
  }

  readNode(callerId: string, nodeId: string, page?: EdgePage): Promise<NodeRead | undefined> {
    return this.read((db) => readNode(db, callerId, nodeId, page));
  }
}

interface Row extends GraphNode {
  rank?: string;
  creator: boolean;
  access: QueriedNode['access'];
}

const NODE_COLUMNS = sql.raw('n.id, n.node_kind, n.title, n.content, n.visibility, n.metadata, n.created_by, n.created_at');

async function listing(db: Db, callerId: string, query: NodeQuery, take: number): Promise<QueriedNode[]> {
  const wanted = query.visibilities;
  const parts = visibleNodeParts(callerId, 'n').filter((part) => !wanted || part.visibilities.some((v) => wanted.includes(v)));
  if (parts.length === 0) return [];
  // Rows of a closed created_at range are found through nodes_created_at_idx and sorted: an
  // id-ordered scan would walk every newer node first when the range lies in the past.
  const closedRange = query.createdFrom !== undefined && query.createdBefore !== undefined;
  const branches = parts.map((part) => {
    const where = sql`${part.where} and ${filters(query, 'n')} ${query.after ? sql`and ${part.orderKey} < ${query.after.id}` : sql``}`;
    return closedRange
      ? sql`(select * from (select ${NODE_COLUMNS} from ${part.from} where ${where} offset 0) n order by n.id desc limit ${take})`
      : sql`(select ${NODE_COLUMNS} from ${part.from} where ${where} order by ${part.orderKey} desc limit ${take})`;
  });
  const result = await sql<Row>`
    select ${NODE_COLUMNS}, ${relation(callerId)}
      from (${sql.join(branches, sql` union all `)}) n
     order by n.id desc
     limit ${take}`.execute(db);
  return result.rows.map(toQueried);
}

async function search(db: Db, callerId: string, query: NodeQuery, text: string, take: number, options: QueryOptions): Promise<NodeQueryPage> {
  const timeoutMs = options.searchTimeoutMs ?? SEARCH_TIMEOUT_MS;
  return db
    .transaction()
    .execute(async (trx) => {
      // Parallel workers cost more to start (~20 ms on a busy machine) than a window costs.
      await sql`select set_config('statement_timeout', ${String(Math.max(1, Math.round(timeoutMs)))}, true),
                       set_config('max_parallel_workers_per_gather', '0', true)`.execute(trx);
      const found = await searchWindows(trx, callerId, query, text, take - 1, {
        window: options.searchWindow ?? SEARCH_WINDOW,
        span: options.searchSpan,
        strategy: options.searchStrategy,
      });
      if (found.rows.length === 0) return { rows: [], next: found.next };
      const nodes = await sql<Row>`
        select ${NODE_COLUMNS}, ${relation(callerId)} from nodes n where n.id = any(${found.rows.map((r) => r.id)}::uuid[])`.execute(trx);
      const byId = new Map(nodes.rows.map((row) => [row.id, row]));
      // A node deleted between the two reads is left out; the page is otherwise in window order.
      const rows = found.rows.flatMap((r) => {
        const row = byId.get(r.id);
        return row ? [{ ...toQueried(row), rank: r.rank }] : [];
      });
      return { rows, next: found.next };
    })
    .catch(searchCancelled);
}

/** The caller's relation to each returned row, which decides the view nodeForReader gives. */
function relation(callerId: string): RawBuilder<unknown> {
  return sql`coalesce(n.created_by = ${callerId}, false) as creator, ${accessLevelOf(callerId, 'n')} as access`;
}

/** The query's own filters, ANDed; `true` when there are none. */
function filters(query: NodeQuery, alias: string): RawBuilder<boolean> {
  const n = sql.table(alias);
  const clauses: RawBuilder<boolean>[] = [];
  if (query.nodeKinds) clauses.push(sql<boolean>`${n}.node_kind = any(${query.nodeKinds}::text[])`);
  if (query.visibilities) clauses.push(sql<boolean>`${n}.visibility = any(${query.visibilities}::visibility[])`);
  if (query.createdBy) clauses.push(sql<boolean>`${n}.created_by = ${query.createdBy}`);
  if (query.createdFrom) clauses.push(sql<boolean>`${n}.created_at >= ${query.createdFrom}`);
  if (query.createdBefore) clauses.push(sql<boolean>`${n}.created_at < ${query.createdBefore}`);
  if (query.collectionId) {
    clauses.push(sql<boolean>`exists (select 1 from edges m
      where m.target_id = ${query.collectionId} and m.edge_type = 'belongs_to' and m.source_id = ${n}.id)`);
  }
  return clauses.length === 0 ? sql<boolean>`true` : sql.join(clauses, sql` and `);
}

function toQueried(row: Row): QueriedNode {
  const { rank, creator, access, ...node } = row;
  return { node, creator, access, ...(rank === undefined ? {} : { rank }) };
}
