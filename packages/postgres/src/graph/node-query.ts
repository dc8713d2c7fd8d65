import { sql, type RawBuilder } from 'kysely';
import type { EdgePage, GraphNode, NodeQuery, NodeQueryPage, NodeQueryStore, NodeRead, QueriedNode } from '@inntak/graph';
import { AppError } from '@inntak/core';
import type { Db } from '../platform/index.js';
import { accessLevelOf, fullViewOf, summaryViewOf, visibleNodeParts } from './read-filter.js';
import { readNode } from './node-reads.js';

/**
 * GET /query/nodes on PostgreSQL (indexes: db/migrations/005.do.query.sql).
 *
 * A listing is newest first (id descending: UUIDv7 is creation order). It is the union of the
 * read filter's three disjoint parts, each read from an index in id order and cut at a page,
 * so the cost follows the page size, not the table. A search ranks every visible match, so it
 * filters with the read filter (title only where the caller sees a summary) and orders by
 * (rank, id) descending.
 */
export async function queryNodes(db: Db, callerId: string, query: NodeQuery, options: QueryOptions = {}): Promise<NodeQueryPage> {
  const take = query.limit + 1;
  const found =
    query.text === undefined
      ? await listing(db, callerId, query, take)
      : await search(db, callerId, query, query.text, take, options.searchTimeoutMs ?? SEARCH_TIMEOUT_MS);
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
}

/**
 * Ranking costs time per matching row, and a word in most nodes matches most of the table:
 * such a search is cancelled and answered 400 (add words or filters) rather than left to hold
 * a connection for seconds.
 */
export const SEARCH_TIMEOUT_MS = 2_000;

export class PostgresNodeQueryStore implements NodeQueryStore {
  constructor(
    private readonly db: Db,
    private readonly options: QueryOptions = {},
  ) {}

  queryNodes(callerId: string, query: NodeQuery): Promise<NodeQueryPage> {
    return queryNodes(this.db, callerId, query, this.options);
  }

  readNode(callerId: string, nodeId: string, page?: EdgePage): Promise<NodeRead | undefined> {
    return readNode(this.db, callerId, nodeId, page);
  }
}

interface Row extends GraphNode {
  rank?: string;
  creator: boolean;
  access: QueriedNode['access'];
}

const QUERY_CANCELED = '57014';

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

async function search(db: Db, callerId: string, query: NodeQuery, text: string, take: number, timeoutMs: number): Promise<QueriedNode[]> {
  const terms = sql`websearch_to_tsquery('simple', ${text})`;
  const after = query.after;
  const result = await db
    .transaction()
    .execute(async (trx) => {
      await sql`select set_config('statement_timeout', ${String(Math.max(1, Math.round(timeoutMs)))}, true)`.execute(trx);
      // A caller who sees a node only as a summary matches and ranks it by its title alone:
      // its content words must not find it, exclude it (`-word`) or lift its rank.
      return sql<Row>`
    select ${NODE_COLUMNS}, n.rank::text as rank, ${relation(callerId)}
      from (select ${NODE_COLUMNS}, ts_rank(s.document, ${terms}) as rank
              from node_search s join nodes n on n.id = s.node_id
             where s.document @@ ${terms}
               and ${filters(query, 'n')} and ${fullViewOf(callerId, 'n')}
            union all
            select ${NODE_COLUMNS}, ts_rank(s.title_document, ${terms}) as rank
              from node_search s join nodes n on n.id = s.node_id
             where s.title_document @@ ${terms}
               and ${filters(query, 'n')} and ${summaryViewOf(callerId, 'n')}) n
     ${after ? sql`where (n.rank, n.id) < (${after.rank ?? '0'}::real, ${after.id}::uuid)` : sql``}
     order by n.rank desc, n.id desc
     limit ${take}`.execute(trx);
    })
    .catch((err: unknown) => {
      if ((err as { code?: unknown }).code === QUERY_CANCELED) {
        throw new AppError('invalid_input', { cause: err, detail: 'q: treffer for mange noder til å rangeres i tide; legg til ord eller filtre' });
      }
      throw err;
    });
  return result.rows.map(toQueried);
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
