import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { openTestDatabase, type OpenTestDatabase } from '../testing/index.js';

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

  it('does not log a fast query', async () => {
    entries.length = 0;
    await sql`select 1`.execute(h.db);
    expect(entries).toEqual([]);
  });
});
