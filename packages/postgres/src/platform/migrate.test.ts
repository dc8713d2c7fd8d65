import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrate } from './migrate.js';

// A scratch database of its own (not a clone of the migrated template): the test migrates it
// from nothing with a migrations folder it writes itself.
// The test run's server (global setup): DATABASE_URL's, or the embedded one when there is none.
const serverUrl = process.env.INNTAK_TEST_ADMIN_URL!;
const name = `review_migrate_${process.pid}_${Date.now()}`;
const url = (() => {
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return u.toString();
})();
const dir = mkdtempSync(join(tmpdir(), 'inntak-migrations-'));

async function onServer<T>(connectionString: string, run: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

beforeAll(() => onServer(serverUrl, (c) => c.query(`create database "${name}"`)));
afterAll(async () => {
  await onServer(serverUrl, (c) => c.query(`drop database if exists "${name}" with (force)`));
  rmSync(dir, { recursive: true, force: true });
});

describe('migrate', () => {
  it('applies a migration whose lower number landed after a higher one was applied', async () => {
    writeFileSync(join(dir, '001.do.first.sql'), 'create table first_t (id int);');
    writeFileSync(join(dir, '015.do.later-number.sql'), 'create table later_t (id int);');
    expect((await migrate(url, dir)).applied).toEqual(['001.do.first.sql', '015.do.later-number.sql'].map((f) => join(dir, f)));

    // 012 lands after 015 was applied on this database.
    writeFileSync(join(dir, '012.do.landed-late.sql'), 'create table late_t (id int);');
    const report = await migrate(url, dir);
    expect(report.applied).toEqual([join(dir, '012.do.landed-late.sql')]);
    const tables = await onServer(url, (c) => c.query(`select to_regclass('public.late_t') as t`));
    expect(tables.rows[0].t).toBe('late_t');
    const versions = await onServer(url, (c) => c.query('select version::int as v from public.schema_version where version > 0 order by version'));
    expect(versions.rows.map((r) => r.v)).toEqual([1, 12, 15]);

    // And nothing again on the next start.
    expect((await migrate(url, dir)).applied).toEqual([]);
  });
});
