import { sql } from 'kysely';
import type { DatabaseStats, IndexStats, TableStats } from '@inntak/core';
import type { Db } from './database.js';

export type { DatabaseStats, IndexStats, TableStats };


export async function readDatabaseStats(db: Db, accessRows: () => Promise<number> = () => countAccessRows(db)): Promise<DatabaseStats> {
  // bigint columns arrive as text from pg; ::float8 keeps them numbers (exact below 2^53).
  const tables = await sql<TableStats>`
    select t.relname as "table",
           t.n_live_tup::float8 as live_rows, t.n_dead_tup::float8 as dead_rows,
           coalesce(t.seq_scan, 0)::float8 as seq_scans, coalesce(t.seq_tup_read, 0)::float8 as seq_rows_read,
           coalesce(t.idx_scan, 0)::float8 as index_scans, coalesce(t.idx_tup_fetch, 0)::float8 as index_rows_fetched,
           t.n_tup_ins::float8 as rows_inserted, t.n_tup_upd::float8 as rows_updated, t.n_tup_del::float8 as rows_deleted,
           coalesce(io.heap_blks_hit, 0)::float8 as heap_blocks_hit, coalesce(io.heap_blks_read, 0)::float8 as heap_blocks_read,
           coalesce(io.idx_blks_hit, 0)::float8 as index_blocks_hit, coalesce(io.idx_blks_read, 0)::float8 as index_blocks_read,
           pg_total_relation_size(t.relid)::float8 as size_bytes,
           greatest(t.last_vacuum, t.last_autovacuum) as last_vacuum,
           greatest(t.last_analyze, t.last_autoanalyze) as last_analyze
      from pg_stat_user_tables t
      join pg_statio_user_tables io on io.relid = t.relid
     where t.schemaname = 'public'
     order by t.relname`.execute(db);
  const indexes = await sql<IndexStats>`
    select i.relname as "table", i.indexrelname as "index",
           i.idx_scan::float8 as scans, i.idx_tup_read::float8 as rows_read, i.idx_tup_fetch::float8 as rows_fetched,
           coalesce(io.idx_blks_hit, 0)::float8 as blocks_hit, coalesce(io.idx_blks_read, 0)::float8 as blocks_read,
           pg_relation_size(i.indexrelid)::float8 as size_bytes
      from pg_stat_user_indexes i
      join pg_statio_user_indexes io on io.indexrelid = i.indexrelid
     where i.schemaname = 'public'
     order by i.relname, i.indexrelname`.execute(db);
  const count = await accessRows();
  const ratio = (hit: number, read: number) => (hit + read === 0 ? null : hit / (hit + read));
  const sum = <T>(rows: T[], pick: (row: T) => number) => rows.reduce((total, row) => total + pick(row), 0);
  return {
    tables: tables.rows,
    indexes: indexes.rows,
    cache_hit_ratio: {
      tables: ratio(sum(tables.rows, (t) => t.heap_blocks_hit), sum(tables.rows, (t) => t.heap_blocks_read)),
      indexes: ratio(sum(tables.rows, (t) => t.index_blocks_hit), sum(tables.rows, (t) => t.index_blocks_read)),
    },
    node_access_rows: count,
  };
}

async function countAccessRows(db: Db): Promise<number> {
  const { rows } = await sql<{ n: number }>`select count(*)::float8 as n from node_access`.execute(db);
  return rows[0]!.n;
}

/**
 * readDatabaseStats for a scraper that asks every few seconds: the catalog reads are cheap and
 * run each time, but the exact count of node_access (a scan of millions of rows: 305 ms at 3 M
 * rows) is taken at most once per `maxAgeMs`. The first call waits for it; later calls answer at
 * once with the last count while an older one is refreshed behind them (docs/scaling.md).
 */
export function cachedDatabaseStats(db: Db, maxAgeMs = 60_000): () => Promise<DatabaseStats> {
  let last: { n: number; at: number } | undefined;
  let refreshing: Promise<number> | undefined;
  const refresh = () =>
    (refreshing ??= countAccessRows(db)
      .then((n) => ((last = { n, at: Date.now() }), n))
      .finally(() => (refreshing = undefined)));
  return () =>
    readDatabaseStats(db, async () => {
      if (!last) return refresh();
      if (Date.now() - last.at > maxAgeMs) void refresh().catch(() => {});
      return last.n;
    });
}
