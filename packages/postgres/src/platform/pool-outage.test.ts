import { describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import type { Logger } from '@inntak/core';
import { admin, setupAdminScene, testDb } from '../__tests__/index.js';
import { openDatabase } from './database.js';

const lines: string[] = [];
const logger: Logger = {
  error: (message) => lines.push(message),
  warn: (message) => lines.push(message),
  info: (message) => lines.push(message),
  debug: () => {},
};

setupAdminScene();

async function connections(): Promise<number> {
  const res = await admin.query<{ n: string }>('select count(*) as n from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [testDb.name]);
  return Number(res.rows[0]!.n);
}

describe('the pool through a database outage', () => {
  it('never holds more than its size, logs a bounded number of lines, and serves queries again when the database is back', async () => {
    const database = openDatabase({ connectionString: testDb.url, logger, max: 4 });
    try {
      const select = () => sql`select pg_sleep(0.05)`.execute(database.db);
      await Promise.all(Array.from({ length: 4 }, select));
      expect(await connections()).toBe(4);

      await admin.query(`alter database "${testDb.name}" allow_connections false`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [testDb.name]);
      let most = 0;
      const failures: unknown[] = [];
      for (let round = 0; round < 10; round++) {
        const results = await Promise.allSettled(Array.from({ length: 8 }, select));
        failures.push(...results.filter((r) => r.status === 'rejected'));
        most = Math.max(most, await connections());
      }
      expect(failures).toHaveLength(80);
      expect(most).toBeLessThanOrEqual(4);
      // A line for each killed connection (client and pool both report it), none per failed query.
      expect(lines.length).toBeLessThanOrEqual(8);

      await admin.query(`alter database "${testDb.name}" allow_connections true`);
      await Promise.all(Array.from({ length: 8 }, select));
      expect(await connections()).toBeLessThanOrEqual(4);
    } finally {
      await database.close();
    }
  });
});
