// Jest global setup: a PostgreSQL server for the run (DATABASE_URL's, or a throw-away embedded
// one in its own process) and a migrated template database that each test file clones.
import { chmodSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrate, spawnEmbeddedPostgres } from '@inntak/postgres';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export default async function globalSetup() {
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const dataDir = mkdtempSync(join(tmpdir(), 'inntak-test-pg-'));
    chmodSync(dataDir, 0o755);
    const server = await spawnEmbeddedPostgres({ dataDir, port: await freePort(), database: 'postgres', ephemeral: true });
    globalThis.__inntakEmbeddedPostgres = server;
    adminUrl = server.url;
  }
  const template = `inntak_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists "${template}"`);
  await admin.query(`create database "${template}"`);
  await admin.end();
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${template}`;
  await migrate(templateUrl.toString());

  process.env.INNTAK_TEST_ADMIN_URL = adminUrl;
  process.env.INNTAK_TEST_TEMPLATE = template;
}
