import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineUnavailable, osUser, POSTGRES_BIN } from './engines.js';
import { freePort } from './free-port.js';
import { ready } from './hot-standby.js';

export interface StoppablePostgres {
  url: string;
  /** A fast shutdown: sessions are ended (57P01), new connections refused. Resolves when it is down. */
  stopServer(): Promise<void>;
  /** Starts it again on the same port and folder; resolves when it accepts connections. */
  startServer(): Promise<void>;
  /** Stops it and removes its folder. */
  dispose(): Promise<void>;
}

/**
 * A throw-away PostgreSQL of Debian's binaries (as the hot standby helper starts them) that a
 * test can stop and start: a real outage, not a simulated one (issue 37).
 */
export async function startStoppablePostgres(): Promise<StoppablePostgres> {
  const unavailable = engineUnavailable('postgres');
  if (unavailable) throw new Error(unavailable);
  const owner = process.getuid?.() === 0 ? osUser('postgres') : undefined;
  const root = mkdtempSync(join(tmpdir(), 'inntak-outage-'));
  chmodSync(root, 0o755);
  if (owner) chownSync(root, owner.uid, owner.gid);
  const dir = join(root, 'data');
  execFileSync(join(POSTGRES_BIN, 'initdb'), ['-D', dir, '-U', 'postgres', '--auth=trust', '--no-sync', '--encoding=UTF8', '--locale=C.UTF-8'], { stdio: 'pipe', ...(owner ?? {}) });
  const port = await freePort();
  let server: ChildProcess | undefined;
  const startServer = async () => {
    server = spawn(join(POSTGRES_BIN, 'postgres'), ['-D', dir, '-p', String(port), '-k', root, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'], { stdio: 'ignore', ...(owner ?? {}) });
    await ready(port);
  };
  const stopServer = async () => {
    const child = server;
    server = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // SIGINT is PostgreSQL's fast shutdown.
    child.kill('SIGINT');
    await exited;
  };
  await startServer();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stopServer,
    startServer,
    async dispose() {
      await stopServer();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
