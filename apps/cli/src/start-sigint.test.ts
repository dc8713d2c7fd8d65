import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { alive, freePort, killGroup, processTree, REPO_ROOT, until } from './__tests__/processes.js';

// Ctrl-C on `inntak start` with the embedded PostgreSQL (issue 22, finding 17): the terminal
// sends SIGINT to the whole foreground process group. A clean stop logs nothing at level error
// (it used to log a dozen: the database went down under the API and the worker), and leaves no
// process behind, PostgreSQL's included.
const BIN = fileURLToPath(new URL('../bin/inntak.js', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'inntak-sigint-'));
let env: NodeJS.ProcessEnv;
let groupLeader: number | undefined;

beforeAll(async () => {
  env = { ...process.env, INNTAK_DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()), PORT: '0', LOG_LEVEL: 'info', STORAGE_DIR: join(dataDir, 'media') };
  for (const name of ['DATABASE_URL', 'BASE_URL', 'OIDC_ISSUER', 'OIDC_AUDIENCE', 'INNTAK_DEV_ISSUER', 'HOST']) delete env[name];
});
afterEach(() => {
  if (groupLeader) killGroup({ pid: groupLeader } as never);
  groupLeader = undefined;
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

interface Line {
  level?: string;
  message?: string;
  [key: string]: unknown;
}

describe('Ctrl-C on inntak start', () => {
  it('SIGINT to the process group: API and worker stop first, PostgreSQL last; no line at level error; every process gone', async () => {
    // A process group of its own, as a shell's foreground job is.
    const child = spawn(process.execPath, [BIN, 'start'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    groupLeader = child.pid;
    const lines: Line[] = [];
    const stderr: string[] = [];
    createInterface({ input: child.stdout! }).on('line', (text) => {
      try {
        lines.push(JSON.parse(text) as Line);
      } catch {
        lines.push({ level: 'unparsed', message: text });
      }
    });
    createInterface({ input: child.stderr! }).on('line', (text) => stderr.push(text));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    const messages = () => lines.map((l) => l.message);
    await until(() => messages().includes('api listening') && messages().includes('worker started'), 240_000, 'api listening and worker started');
    const tree = processTree(child.pid!);
    expect(tree.some((p) => p.cmdline.includes('postgres -D'))).toBe(true);

    process.kill(-child.pid!, 'SIGINT');
    expect(await exited).toBe(0);
    await until(() => tree.every((p) => !alive(p.pid)), 30_000, `every process to stop: ${tree.filter((p) => alive(p.pid)).map((p) => p.cmdline).join(' | ')}`);

    expect(lines.filter((l) => l.level === 'error' || l.level === 'unparsed')).toEqual([]);
    expect(stderr.filter((line) => /error|fatal/i.test(line))).toEqual([]);
    const stop = messages().slice(messages().indexOf('worker started'));
    expect(stop).toEqual(expect.arrayContaining(['api stopped', 'worker stopped', 'inntak stopped']));
    expect(stop.indexOf('inntak stopped')).toBe(stop.length - 1);
  }, 300_000);
});
