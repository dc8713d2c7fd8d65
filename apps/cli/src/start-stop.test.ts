import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { alive, freePort, killGroup, npmStart, processTree, REPO_ROOT, until, type ProcessInfo, type Started } from './__tests__/processes.js';

// `npm start` on the embedded PostgreSQL, as a user runs it: npm, the CLI, the API, the worker,
// the embedded server's process and PostgreSQL's own. Whichever of them gets the signal, the
// whole tree must be gone within seconds (none left running under PID 1).
const BIN = fileURLToPath(new URL('../bin/inntak.js', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'inntak-stop-'));
let env: NodeJS.ProcessEnv;
let current: Started | undefined;

beforeAll(async () => {
  env = { ...process.env, INNTAK_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()), PORT: '0', LOG_LEVEL: 'info' };
  for (const name of ['DATABASE_URL', 'BASE_URL', 'OIDC_ISSUER', 'OIDC_AUDIENCE', 'INNTAK_DEV_ISSUER', 'HOST']) delete env[name];
});
afterEach(() => {
  if (current) killGroup(current.child);
  current = undefined;
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** `inntak start` without npm in between (npm's part is tested on its own). */
function cliStart(): Started {
  const child = spawn(process.execPath, [BIN, 'start'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const messages: string[] = [];
  const stderr: string[] = [];
  const waiters: Array<{ message: string; resolve: () => void }> = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      const message = (JSON.parse(line) as { message: string }).message;
      messages.push(message);
      for (const w of waiters.filter((w) => w.message === message)) w.resolve();
    } catch {
      // not a log line
    }
  });
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  return {
    child,
    messages,
    stderr,
    exited: new Promise((resolve) => child.on('close', (code) => resolve(code))),
    seen: (message) => (messages.includes(message) ? Promise.resolve() : new Promise((resolve) => waiters.push({ message, resolve }))),
  };
}

async function startedTree(started: Started): Promise<{ tree: ProcessInfo[]; find(part: string): ProcessInfo }> {
  current = started;
  await started.seen('api listening');
  await started.seen('worker started');
  const tree = processTree(started.child.pid!);
  const find = (part: string) => {
    const found = tree.find((p) => p.cmdline.includes(part));
    if (!found) throw new Error(`no ${part} in ${tree.map((p) => p.cmdline).join(' | ')}`);
    return found;
  };
  find('postgres -D');
  return { tree, find };
}

async function expectAllGone(tree: ProcessInfo[]): Promise<void> {
  await until(() => tree.every((p) => !alive(p.pid)), 30_000, `every process to stop: ${tree.filter((p) => alive(p.pid)).map((p) => p.cmdline).join(' | ')}`);
}

describe('npm start stops as a whole, whichever process gets the signal', () => {
  it('SIGTERM to npm (what `kill %1` reaches first): everything stops and npm exits 0; the first lines say it is building; the embedded server runs with fsync on', async () => {
    const started = npmStart(env);
    const { tree } = await startedTree(started);
    expect(started.stderr.some((line) => line.includes('inntak: building with tsc -b'))).toBe(true);
    // `.data/` is promised to survive an OS crash (README): the embedded server keeps fsync on (issue 38).
    const client = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${env.EMBEDDED_PG_PORT}/inntak` });
    await client.connect();
    try {
      expect((await client.query<{ fsync: string }>('show fsync')).rows[0]!.fsync).toBe('on');
    } finally {
      await client.end();
    }
    process.kill(started.child.pid!, 'SIGTERM');
    expect(await started.exited).toBe(0);
    await expectAllGone(tree);
  }, 300_000);

  it('SIGTERM to the whole process group (`kill %1` in an interactive shell)', async () => {
    const started = npmStart(env);
    const { tree } = await startedTree(started);
    process.kill(-started.child.pid!, 'SIGTERM');
    await started.exited;
    await expectAllGone(tree);
  }, 300_000);

  it.each([
    ['the CLI', 'bin/inntak.js start', 'SIGTERM'],
    ['the API', 'api/dist/main.js', 'SIGTERM'],
    ['the worker', 'worker/dist/main.js', 'SIGTERM'],
    ['the embedded PostgreSQL process', 'embedded-server-process.js', 'SIGTERM'],
    ['the CLI, killed outright (its children are tied to it)', 'bin/inntak.js start', 'SIGKILL'],
  ] as const)('%s', async (_what, part, signal) => {
    const started = cliStart();
    const { tree, find } = await startedTree(started);
    process.kill(find(part).pid, signal);
    await started.exited;
    await expectAllGone(tree);
  }, 300_000);
});
