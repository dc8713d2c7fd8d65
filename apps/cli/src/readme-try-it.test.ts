import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openTestDatabase, type OpenTestDatabase } from '@inntak/postgres/testing';
import { freePort, killGroup, npmStart, REPO_ROOT, type Started } from './__tests__/processes.js';

// README's "Try it" block, read from README.md, run as a user types it from the repository root
// (after `npm ci`): `npm start` in the background, then every line through bash, `npx --no-install
// inntak` included. Only the database differs: this test's own, through DATABASE_URL.
const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Try it')))![1]!.trimEnd().split('\n');
const [startLine, ...rest] = block;
const killLine = rest.pop()!;
const startEnv = Object.fromEntries(
  [.../^npm ci && ((?:\w+=\S+ )*)npm start &/.exec(startLine!)![1]!.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]),
);

let h: OpenTestDatabase;
let started: Started;
let env: NodeJS.ProcessEnv;
const dataDir = mkdtempSync(join(tmpdir(), 'inntak-readme-'));

beforeAll(async () => {
  h = await openTestDatabase();
  env = { ...process.env, DATABASE_URL: h.url, PORT: String(await freePort()), INNTAK_DATA_DIR: dataDir, LOG_LEVEL: 'info' };
  delete env.BASE_URL;
  started = npmStart({ ...env, ...startEnv });
  await started.seen('api listening');
  await started.seen('worker started');
}, 300_000);

afterAll(async () => {
  killGroup(started.child);
  await h.dispose();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('README "Try it"', () => {
  it('starts with npm start in the background and ends with kill %1', () => {
    expect(startLine).toMatch(/^npm ci && (\w+=\S+ )*npm start &/);
    expect(startEnv).toEqual({ INNTAK_DEV_ISSUER: '1' });
    expect(killLine).toMatch(/^kill %1\b/);
    expect(rest.filter((line) => /\binntak\b/.test(line)).every((line) => line.includes('npx --no-install inntak '))).toBe(true);
  });

  it('works as typed: a person, a collection, a webhook, a push delivered, /me and /query/nodes with a development token', async () => {
    const { stdout } = await promisify(execFile)('bash', ['-c', ['set -euo pipefail', ...rest, 'echo "P=$P"'].join('\n')], { cwd: REPO_ROOT, env, timeout: 180_000 });
    const lines = stdout.trim().split('\n');
    const person = lines.pop()!.replace('P=', '');
    const [intake, me, query] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(intake).toEqual({ node_id: expect.any(String), edge_id: expect.any(String) });
    expect(me).toEqual({ node_id: person, admin: false });
    expect((query!.nodes as Array<{ id: string }>).map((n) => n.id)).toContain(intake!.node_id);
  }, 240_000);

  it('kill %1 (SIGTERM to npm start) stops API, worker and CLI, and npm start exits 0', async () => {
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
    expect(started.messages).toEqual(expect.arrayContaining(['api stopped', 'worker stopped', 'inntak stopped']));
  }, 60_000);
});
