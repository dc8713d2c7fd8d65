import { fileURLToPath } from 'node:url';
import pg from 'pg';
import Postgrator from 'postgrator';
import { runMigrations } from 'graphile-worker';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../../db/migrations', import.meta.url));

export interface MigrationReport {
  applied: string[];
  version: number;
}

/**
 * Bring a database to the current schema: our SQL files through postgrator, then
 * graphile-worker's own schema through its migrator. Repeatable, and serialised
 * across processes.
 */
export async function migrate(connectionString: string, migrationsDir = MIGRATIONS_DIR): Promise<MigrationReport> {
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    // Serialise concurrent migrators (API and worker starting together) on one advisory lock.
    await client.query("select pg_advisory_lock(hashtext('inntak.migrate'))");
    const postgrator = new Postgrator({
      migrationPattern: `${migrationsDir}/*`,
      driver: 'pg',
      database: client.database,
      schemaTable: 'public.schema_version',
      execQuery: (query: string) => client.query(query),
    });
    const applied = await postgrator.migrate();
    // Migration numbers are handed out before their branches land, so a lower number can land
    // after a higher one was applied. Postgrator only moves forward from the highest applied
    // version and would skip it for good on every existing database: apply those here, in order.
    const done = new Set((await client.query<{ version: string }>('select version from public.schema_version')).rows.map((r) => Number(r.version)));
    const late = (await postgrator.getMigrations())
      .filter((m) => m.action === 'do' && !done.has(m.version))
      .sort((a, b) => a.version - b.version);
    applied.push(...(await postgrator.runMigrations(late)));
    const version = await postgrator.getDatabaseVersion();
    const pool = new pg.Pool({ connectionString, max: 1 });
    // A lost client surfaces as a failed query below; the handlers keep it from crashing us.
    pool.on('error', () => {});
    pool.on('connect', (c) => c.on('error', () => {}));
    try {
      await runMigrations({ pgPool: pool });
    } finally {
      await pool.end();
    }
    return { applied: applied.map((m) => m.filename), version };
  } finally {
    await client.end();
  }
}
