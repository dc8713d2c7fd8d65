import pg from 'pg';
import type { Logger } from '@inntak/core';
import { migrate, spawnEmbeddedPostgres } from '@inntak/postgres';
import type { CliConfig } from './config.js';

export interface ResolvedDatabase {
  url: string;
  /** Stops the embedded server if this process started it; a no-op otherwise. */
  release(): Promise<void>;
}

/**
 * DATABASE_URL when set; otherwise the embedded PostgreSQL under .data/ — reused when another
 * process (a running `npm start`) already serves it, started here (in a child process that
 * stops only when released) when not.
 */
export async function resolveDatabase(config: CliConfig, logger: Logger): Promise<ResolvedDatabase> {
  if (config.databaseUrl) return { url: config.databaseUrl, release: async () => {} };
  const url = `postgres://postgres:postgres@127.0.0.1:${config.embeddedPort}/inntak`;
  if (await answers(url)) return { url, release: async () => {} };
  logger.info('starting embedded PostgreSQL', { data_dir: config.dataDir, port: config.embeddedPort });
  const server = await spawnEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPort, database: 'inntak' });
  // The embedded database is ours to keep current; an operator's DATABASE_URL is migrated only
  // by `inntak migrate` or `npm start`.
  await migrate(server.url);
  return { url: server.url, release: () => server.stop() };
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
