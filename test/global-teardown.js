import pg from 'pg';

export default async function globalTeardown() {
  const server = globalThis.__inntakEmbeddedPostgres;
  if (server) {
    await server.stop();
    return;
  }
  // A shared server (DATABASE_URL): drop our template; each test file drops its own database.
  const admin = new pg.Client({ connectionString: process.env.INNTAK_TEST_ADMIN_URL });
  await admin.connect();
  await admin.query(`drop database if exists "${process.env.INNTAK_TEST_TEMPLATE}" with (force)`);
  await admin.end();
}
