import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs';
import { sep } from 'node:path';
import pg from 'pg';
import type { Logger } from '@inntak/core';
import { migrate, spawnEmbeddedPostgres } from '@inntak/postgres';
import type { CliConfig } from './config.js';

export interface ResolvedDatabase {
  url: string;
  /** Stops the embedded server if this process started it; a no-op otherwise. */
  release(): Promise<void>;
  /** Settles if the embedded server this process started stops (never for DATABASE_URL). */
  exited: Promise<void>;
}

const never = new Promise<void>(() => {});

/**
 * DATABASE_URL when set (it must answer now, or the command fails naming it); otherwise the
 * embedded PostgreSQL under INNTAK_DATA_DIR — reused when another process (a running `npm start`)
 * already serves it, started here (in a child process that stops when released, or when this
 * process goes away) when not.
 */
export async function resolveDatabase(config: CliConfig, logger: Logger): Promise<ResolvedDatabase> {
  if (config.databaseUrl) {
    const problem = await unanswered(config.databaseUrl, 5000);
    if (problem) throw new Error(`DATABASE_URL: the database at ${withoutPassword(config.databaseUrl)} does not answer (${problem})`);
    return { url: config.databaseUrl, release: async () => {}, exited: never };
  }
  const url = `postgres://postgres:postgres@127.0.0.1:${config.embeddedPort}/inntak`;
  if ((await unanswered(url, 1000)) === undefined) return { url, release: async () => {}, exited: never };
  usableDataDir(config.dataDir);
  logger.info('starting embedded PostgreSQL', { data_dir: config.dataDir, port: config.embeddedPort });
  const server = await spawnEmbeddedPostgres({ dataDir: config.dataDir, port: config.embeddedPort, database: 'inntak' }).catch((err: Error) => {
    // As root the library runs PostgreSQL as the OS user `postgres`, which must reach the folder.
    const hint = /permission denied/i.test(err.message) ? '; the OS user postgres must be able to open every folder on the way to INNTAK_DATA_DIR' : '';
    throw new Error(`the embedded PostgreSQL (INNTAK_DATA_DIR=${config.dataDir}, EMBEDDED_PG_PORT=${config.embeddedPort}) did not start: ${err.message}${hint}`, { cause: err });
  });
  // The embedded database is ours to keep current; an operator's DATABASE_URL is migrated only
  // by `inntak migrate` or `npm start`.
  await migrate(server.url);
  return { url: server.url, release: () => server.stop(), exited: server.exited };
}

/** Fails with the variable's name rather than letting PostgreSQL's initdb fail (or wait) later. */
function usableDataDir(dir: string): void {
  try {
    makeDirectory(dir);
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new Error(`INNTAK_DATA_DIR must be a directory this user can create and write; ${dir}: ${reason}`, { cause: err });
  }
}

/** mkdir -p one level at a time: Node's recursive mkdirSync never returns for a path under /proc. */
function makeDirectory(dir: string): void {
  const parts = dir.split(sep);
  for (let i = 2; i <= parts.length; i++) {
    const path = parts.slice(0, i).join(sep) || sep;
    if (!existsSync(path)) mkdirSync(path);
  }
}

/** undefined when the server answers `select 1`, else why not. */
async function unanswered(url: string, timeoutMs: number): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return undefined;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  } finally {
    await client.end().catch(() => {});
  }
}

function withoutPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}
