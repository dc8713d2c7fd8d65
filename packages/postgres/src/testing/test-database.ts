import { randomBytes } from 'node:crypto';
import type { Logger } from '@inntak/core';
import { openDatabase, withClient, type DatabaseHandle } from '../platform/index.js';

/**
 * One fresh database per test file, cloned from the migrated template that the test run's
 * global setup made (INNTAK_TEST_ADMIN_URL names the server, INNTAK_TEST_TEMPLATE the template).
 */
export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.INNTAK_TEST_ADMIN_URL;
  const template = process.env.INNTAK_TEST_TEMPLATE;
  if (!adminUrl || !template) throw new Error('test database template missing: run tests through jest (global setup)');
  const name = `inntak_test_${randomBytes(6).toString('hex')}`;
  await withClient(adminUrl, (client) => client.query(`create database "${name}" template "${template}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () =>
      withClient(adminUrl, async (client) => {
        await client.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
        await client.query(`drop database if exists "${name}"`);
      }),
  };
}

/** A test database with its pool open: `dispose()` closes the pool and drops the database. */
export interface OpenTestDatabase extends DatabaseHandle {
  url: string;
  dispose(): Promise<void>;
}

const silent: Logger = { error() {}, warn() {}, info() {}, debug() {} };

export async function openTestDatabase(logger: Logger = silent): Promise<OpenTestDatabase> {
  const testDb = await createTestDatabase();
  const handle = openDatabase({ connectionString: testDb.url, logger });
  return {
    ...handle,
    url: testDb.url,
    async dispose() {
      await handle.close();
      await testDb.drop();
    },
  };
}
