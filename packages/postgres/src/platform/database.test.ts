import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { openTestDatabase, type OpenTestDatabase } from '../testing/index.js';
import { openDatabase } from './database.js';

const entries: Array<{ level: string; message: string; meta?: Record<string, unknown> }> = [];
const logger = {
  error: (message: string, meta?: Record<string, unknown>) => entries.push({ level: 'error', message, meta }),
  warn: (message: string, meta?: Record<string, unknown>) => entries.push({ level: 'warn', message, meta }),
  info: () => {},
  debug: () => {},
};
let h: OpenTestDatabase;

beforeAll(async () => {
  h = await openTestDatabase(logger);
});
afterAll(async () => {
  await h.dispose();
});

describe('slow query logging', () => {
  it('logs a query over 100 ms at warning with tag slow_query and its duration', async () => {
    await sql`select pg_sleep(0.15)`.execute(h.db);
    const entry = entries.find((e) => e.meta?.tag === 'slow_query');
    expect(entry).toMatchObject({ level: 'warn', meta: { tag: 'slow_query', sql: 'select pg_sleep(0.15)' } });
    expect(entry!.meta!.duration_ms).toBeGreaterThanOrEqual(100);
  });

  // A query under its threshold, not a "fast" one by the clock: on a busy machine even
  // `select 1` has taken 108 ms, so the threshold here is far above the query.
  it('does not log a query under its threshold (SLOW_QUERY_MS)', async () => {
    const patient = openDatabase({ connectionString: h.url, logger, slowQueryMs: 10_000 });
    try {
      entries.length = 0;
      await sql`select pg_sleep(0.15)`.execute(patient.db);
      expect(entries).toEqual([]);
    } finally {
      await patient.close();
    }
  });
});
