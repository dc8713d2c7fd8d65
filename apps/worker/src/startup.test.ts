import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openTestDatabase, type OpenTestDatabase } from '@inntak/postgres/testing';

// The worker as its own process (its build, as `npm start` runs it): a STORAGE_DIR it cannot use
// ends it at once with one line naming the variable, and a signal during start-up stops it
// (issue 22, finding 16: under /proc it spun and then ignored SIGTERM and SIGINT).
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'inntak-worker-startup-'));
let h: OpenTestDatabase;

beforeAll(async () => {
  h = await openTestDatabase();
});
afterAll(async () => {
  await h.dispose();
  rmSync(dir, { recursive: true, force: true });
});

interface Run {
  lines: Array<{ level: string; message: string }>;
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  pid: number;
}

function startWorkerProcess(env: Record<string, string>): Run {
  const base = { ...process.env };
  delete base.STORAGE_DIR;
  const child = spawn(process.execPath, [MAIN], { env: { ...base, LOG_LEVEL: 'info', WORKER_CRONTAB: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Run['lines'] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (text) => lines.push(JSON.parse(text) as Run['lines'][number]));
  createInterface({ input: child.stderr! }).on('line', (text) => stderr.push(text));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  // A worker that never ends must not outlive the test run.
  const guard = setTimeout(() => child.kill('SIGKILL'), 90_000);
  void exited.then(() => clearTimeout(guard));
  return { lines, stderr, exited, pid: child.pid! };
}

/**
 * A database that answers its first connection (start-up's probe) and then never again: the
 * worker's own pool waits for ever, so start-up is caught half-way.
 */
async function stallingDatabase(target: URL): Promise<{ url: string; connections: () => number; close(): void }> {
  const held: Socket[] = [];
  let count = 0;
  const server: Server = createServer((socket) => {
    count += 1;
    if (count === 1) {
      const upstream = connect(Number(target.port || 5432), target.hostname);
      socket.pipe(upstream).pipe(socket);
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
      held.push(upstream);
    }
    socket.on('error', () => {});
    held.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    connections: () => count,
    close() {
      for (const socket of held) socket.destroy();
      server.close();
    },
  };
}

/**
 * The worker's exit, or a failure naming what it did not do. The bound only tells a hang from an
 * exit on a busy machine (where a start takes seconds); how fast it ends is not what is tested.
 */
function ended(run: Run, what: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the worker did not end within 30 s ${what}`)), 30_000);
  });
  return Promise.race([run.exited, hung]).finally(() => clearTimeout(timer));
}

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('worker start-up: STORAGE_DIR', () => {
  const file = join(dir, 'a-file');
  beforeAll(() => writeFileSync(file, 'not a directory'));

  it.each([
    ['under /proc', '/proc/inntak-media', 'ENOENT'],
    ['under a file', join(dir, 'a-file', 'media'), 'ENOTDIR'],
  ])('a STORAGE_DIR %s ends the worker with exit 1 and one line naming STORAGE_DIR', async (_where, storageDir, reason) => {
    const run = startWorkerProcess({ DATABASE_URL: h.url, STORAGE_DIR: storageDir });
    const { code } = await ended(run, 'of starting');
    expect(code).toBe(1);
    expect(run.lines).toEqual([
      expect.objectContaining({ level: 'error', message: `STORAGE_DIR must be a directory this user can create and write; ${storageDir}: ${reason}` }),
    ]);
    expect(run.stderr).toEqual([]);
  }, 90_000);

  it('a STORAGE_DIR that does not exist yet is made', async () => {
    const storageDir = join(dir, 'new', 'media');
    const run = startWorkerProcess({ DATABASE_URL: h.url, STORAGE_DIR: storageDir });
    await until(() => run.lines.some((l) => l.message === 'worker started'), 30_000);
    process.kill(run.pid, 'SIGTERM');
    expect((await run.exited).code).toBe(0);
  }, 90_000);
});

describe('worker start-up: signals', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s while start-up waits on the database ends the worker instead of waiting on it, with exit 0', async (signal) => {
    const stalling = await stallingDatabase(new URL(h.url));
    try {
      const run = startWorkerProcess({ DATABASE_URL: stalling.url, STORAGE_DIR: join(dir, 'media') });
      // The probe passed; the worker's own pool is now waiting for an answer that never comes.
      await until(() => stalling.connections() >= 2, 30_000);
      process.kill(run.pid, signal);
      // Without its signal handler it would wait on the stalled pool for ever.
      const { code } = await ended(run, `of ${signal}`);
      expect(code).toBe(0);
      expect(run.lines.map((l) => l.message)).toEqual(['worker stopping during start-up']);
      expect(run.lines.every((l) => l.level !== 'error')).toBe(true);
    } finally {
      stalling.close();
    }
  }, 90_000);
});
