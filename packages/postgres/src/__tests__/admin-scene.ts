import { afterAll, beforeAll } from '@jest/globals';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../testing/index.js';

// The scene of the outage tests: a test database and a superuser client beside it, which can
// refuse the database's connections and end its backends. Connections are allowed again at the end.

export let testDb: TestDatabase;
export let admin: pg.Client;

/** Builds the scene for the calling test file, and drops the database after. */
export function setupAdminScene(): void {
  beforeAll(async () => {
    testDb = await createTestDatabase();
    admin = new pg.Client({ connectionString: process.env.INNTAK_TEST_ADMIN_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.query(`alter database "${testDb.name}" allow_connections true`);
    await admin.end();
    await testDb.drop();
  });
}
