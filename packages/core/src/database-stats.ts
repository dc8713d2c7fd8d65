/**
 * What GET /metrics reads of the database (a port's answer: packages/postgres readDatabaseStats).
 * The `pg_stats` part of GET /metrics (docs/metrics.md): PostgreSQL's cumulative statistics for
 * the schema's own tables and indexes, since the server's last statistics reset.
 */
export interface DatabaseStats {
  tables: TableStats[];
  indexes: IndexStats[];
  /** Share of heap and index block reads served from shared buffers; null before any read. */
  cache_hit_ratio: { tables: number | null; indexes: number | null };
  /** Exact count(*) of the access matrix. */
  node_access_rows: number;
}

export interface TableStats {
  table: string;
  live_rows: number;
  dead_rows: number;
  seq_scans: number;
  seq_rows_read: number;
  index_scans: number;
  index_rows_fetched: number;
  rows_inserted: number;
  rows_updated: number;
  rows_deleted: number;
  heap_blocks_hit: number;
  heap_blocks_read: number;
  index_blocks_hit: number;
  index_blocks_read: number;
  size_bytes: number;
  last_vacuum: Date | null;
  last_analyze: Date | null;
}

export interface IndexStats {
  table: string;
  index: string;
  scans: number;
  rows_read: number;
  rows_fetched: number;
  blocks_hit: number;
  blocks_read: number;
  size_bytes: number;
}
