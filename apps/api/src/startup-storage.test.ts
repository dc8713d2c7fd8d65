import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

// The API as its own process (its build, as `npm start` runs it): a STORAGE_DIR it cannot use
// ends it at once with one line naming the variable, and a signal during start-up stops it
// (issue 22, finding 16).
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'inntak-api-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Run {
  lines: Array<{ level: string; message: string }>;
  stderr: string[];
  exited: Promise<number | null>;
  pid: number;
}

function startApiProcess(env: Record<string, string>): Run {
  const base = { ...process.env };
  for (const name of ['STORAGE_DIR', 'OIDC_ISSUER', 'OIDC_AUDIENCE', 'INNTAK_DEV_ISSUER', 'HOST', 'BASE_URL']) delete base[name];
  const child = spawn(process.execPath, [MAIN], { env: { ...base, PORT: '0', LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Run['lines'] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (text) => lines.push(JSON.parse(text) as Run['lines'][number]));
  createInterface({ input: child.stderr! }).on('line', (text) => stderr.push(text));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  // An API that never ends must not outlive the test run.
  const guard = setTimeout(() => child.kill('SIGKILL'), 90_000);
  void exited.then(() => clearTimeout(guard));
  return { lines, stderr, exited, pid: child.pid! };
}

/**
 * The API's exit code, or a failure naming what it did not do. The bound only tells a hang from
 * an exit on a busy machine; how fast it ends is not what is tested.
 */
function ended(run: Run, what: string): Promise<number | null> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`the API did not end within 30 s ${what}`)), 30_000);
  });
  return Promise.race([run.exited, hung]).finally(() => clearTimeout(timer));
}

describe('API start-up: STORAGE_DIR', () => {
  const file = join(dir, 'a-file');
  beforeAll(() => writeFileSync(file, 'not a directory'));

  it.each([
    ['under /proc', '/proc/inntak-media', 'ENOENT'],
    ['under a file', join(dir, 'a-file', 'media'), 'ENOTDIR'],
  ])('a STORAGE_DIR %s ends the API with exit 1 and one line naming STORAGE_DIR', async (_where, storageDir, reason) => {
    const run = startApiProcess({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none', STORAGE_DIR: storageDir });
    expect(await run.exited).toBe(1);
    expect(run.lines).toEqual([
      expect.objectContaining({ level: 'error', message: `STORAGE_DIR must be a directory this user can create and write; ${storageDir}: ${reason}` }),
    ]);
    expect(run.stderr).toEqual([]);
  }, 30_000);
});

describe('API start-up: signals', () => {
  const held: Socket[] = [];
  let stalledUrl: string;
  let connections = 0;
  const server = createServer((socket) => {
    // A database that accepts connections and never answers: start-up waits on its probe.
    connections += 1;
    socket.on('error', () => {});
    held.push(socket);
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stalledUrl = `postgres://postgres@127.0.0.1:${(server.address() as { port: number }).port}/inntak`;
  });
  afterAll(() => {
    for (const socket of held) socket.destroy();
    server.close();
  });

  it.each(['SIGTERM', 'SIGINT'] as const)('%s while start-up waits on the database ends the API instead of waiting on it, with exit 0', async (signal) => {
    const before = connections;
    const run = startApiProcess({ DATABASE_URL: stalledUrl, STORAGE_DIR: join(dir, 'media') });
    const deadline = Date.now() + 30_000;
    while (connections === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    process.kill(run.pid, signal);
    // Without its signal handler it would wait on the silent database for ever.
    expect(await ended(run, `of ${signal}`)).toBe(0);
    expect(run.lines.map((l) => l.message)).toContain('api stopping during start-up');
    expect(run.lines.filter((l) => l.level === 'error')).toEqual([]);
  }, 90_000);
});
