// Jest global setup: a PostgreSQL server for the run (DATABASE_URL's, or an embedded one in a
// child process) and a migrated template database that each test file clones.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrate } from '@inntak/postgres';

export default async function globalSetup() {
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const child = spawn(process.execPath, [fileURLToPath(new URL('./embedded-postgres-process.js', import.meta.url))], {
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    globalThis.__inntakEmbeddedPostgres = child;
    adminUrl = await new Promise((resolve, reject) => {
      const lines = createInterface({ input: child.stdout });
      lines.once('line', (line) => resolve(JSON.parse(line).url));
      child.once('exit', (code) => reject(new Error(`embedded PostgreSQL exited with ${code} before it was ready`)));
    });
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
