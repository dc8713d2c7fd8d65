import { Kysely, PostgresDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import type { Logger } from '@inntak/core';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;

export interface DatabaseOptions {
  connectionString: string;
  logger: Logger;
  /** Queries slower than this are logged at warning with tag `slow_query` (spec: 100 ms). */
  slowQueryMs?: number;
  max?: number;
  /**
   * synchronous_commit=off for this pool's sessions. A crash then loses at most the last few
   * hundred ms of commits, as a WAL suffix, so a job's completion never survives without the job's
   * own writes: right for the worker, whose jobs are at-least-once anyway.
   */
  asyncCommit?: boolean;
  /**
   * Client-side bounds (a replica, issue 38): a connection (or a free client of the pool) within
   * `connectMs`, every query's answer within `queryMs`. Client-side because a frozen server
   * answers nothing, not even a statement_timeout. The CLI bounds the connection only (a command
   * such as `webhook rerender` may query for long).
   */
  timeouts?: { connectMs: number; queryMs?: number };
}

/** A fixed SQL text under a name unique in the process. */
export interface PreparedStatement {
  name: string;
  text: string;
}

export interface DatabaseHandle {
  db: Db;
  pool: pg.Pool;
  /**
   * A hot path's query as a named prepared statement: each connection parses and plans it once,
   * where kysely would build the SQL and the server plan it on every call. Slow ones are logged
   * like kysely's.
   */
  prepared<R>(statement: PreparedStatement, values: unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

/**
 * One pool per process, shared by kysely and graphile-worker. The pool's `error` handler keeps
 * an idle client's lost connection (Postgres restart) from crashing the process.
 */
export function openDatabase(options: DatabaseOptions): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    ...(options.asyncCommit ? { options: '-c synchronous_commit=off' } : {}),
    ...(options.timeouts ? { connectionTimeoutMillis: options.timeouts.connectMs } : {}),
    ...(options.timeouts?.queryMs !== undefined ? { query_timeout: options.timeouts.queryMs } : {}),
  });
  pool.on('error', (err) => options.logger.error('idle database client failed', { error: err.message }));
  pool.on('connect', (client) => client.on('error', (err) => options.logger.error('database client failed', { error: err.message })));
  const slowMs = options.slowQueryMs ?? 100;
  const logSlow = (sql: string, ms: number) => options.logger.warn('slow query', { tag: 'slow_query', duration_ms: Math.round(ms), sql });
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool }),
    log: (event: LogEvent) => {
      if (event.level === 'query' && event.queryDurationMillis > slowMs) {
        logSlow(event.query.sql, event.queryDurationMillis);
      } else if (event.level === 'error') {
        options.logger.debug('query failed', {
          duration_ms: Math.round(event.queryDurationMillis),
          sql: event.query.sql,
          error: event.error instanceof Error ? event.error.message : String(event.error),
        });
      }
    },
  });
  let closed = false;
  return {
    db,
    pool,
    async prepared<R>(statement: PreparedStatement, values: unknown[]): Promise<R[]> {
      const started = performance.now();
      const result = await pool.query({ name: statement.name, text: statement.text, values });
      const ms = performance.now() - started;
      if (ms > slowMs) logSlow(statement.text, ms);
      return result.rows as R[];
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
      // kysely ends the pool only if it ever used it; graphile-worker may have been its only user.
      if (!pool.ended) await pool.end();
    },
  };
}

/** One short-lived connection for administrative work (create or drop a database, a probe). */
export async function withClient<T>(connectionString: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * What a failed first connection says about the database (issue 38): a server that refused the
 * credentials or does not have the database did answer, so "does not answer" would send the
 * operator looking at the network instead of at DATABASE_URL's user, password or name.
 */
export function connectionProblem(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === '28P01') return `the database refused the password (28P01: ${message})`;
  if (code === '28000') return `the database refused the user (28000: ${message})`;
  if (code === '3D000') return `the database server answered, but has no such database (3D000: ${message})`;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return `the database answered with an error (${code}: ${message})`;
  return `the database does not answer (${typeof code === 'string' ? code : message})`;
}
