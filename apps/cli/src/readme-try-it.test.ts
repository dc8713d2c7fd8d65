import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openTestDatabase, type OpenTestDatabase } from '@inntak/postgres/testing';
import { describeWithEngine } from '@inntak/test-support';
import { freePort, killGroup, npmStart, REPO_ROOT, type Started } from './__tests__/processes.js';

// README's "Try it" block, read from README.md, run as a user types it from the repository root
// (after `npm ci`): `npm start` in the background, then every line through bash, the `export
// PATH=…` that puts npm's link of `inntak` on the PATH included. Only the database differs: this
// test's own, through DATABASE_URL.
const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('## Try it')))![1]!.trimEnd().split('\n');
const [startLine, ...rest] = block;
const killLine = rest.pop()!;
// "Publish a first page" restarts the service the same way and goes on from Try it's $P and $URL.
const publishBlock = /```sh\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('### Publish a first page')))![1]!.trimEnd().split('\n');
const startEnv = Object.fromEntries(
  [.../^npm ci && ((?:\w+=\S+ )*)npm start &/.exec(startLine!)![1]!.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]),
);

let h: OpenTestDatabase;
let started: Started;
let env: NodeJS.ProcessEnv;
/** $P, $URL and $PATH as the Try it block left them, for the publishing block. */
let tried: { P: string; URL: string; PATH: string } | undefined;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'inntak-readme-'));
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

// The block uses curl and jq, which npm does not install (README, "Optional engines").
describeWithEngine('curl-jq', describe, 'README "Try it"', () => {
  it('starts with npm start in the background and ends with kill %1', () => {
    expect(startLine).toMatch(/^npm ci && (\w+=\S+ )*npm start &/);
    expect(startEnv).toEqual({ INNTAK_DEV_ISSUER: '1' });
    expect(killLine).toMatch(/^kill %1\b/);
    // The fast form (docs/cli.md, "Speed"): npm's link of the committed bin, on the PATH; no npx.
    expect(rest[0]).toMatch(/^export PATH="\$PWD\/node_modules\/\.bin:\$PATH" /);
    expect(rest.filter((line) => /\binntak /.test(line)).length).toBeGreaterThan(3);
    expect(rest.some((line) => /\bnpx\b/.test(line))).toBe(false);
  });

  it('works as typed: a person, a collection, a webhook, a push delivered, /me and /query/nodes with a development token', async () => {
    const { stdout } = await promisify(execFile)('bash', ['-c', ['set -euo pipefail', ...rest, 'echo "PATH=$PATH"', 'echo "URL=$URL"', 'echo "P=$P"'].join('\n')], {
      cwd: REPO_ROOT,
      env,
      timeout: 180_000,
    });
    const lines = stdout.trim().split('\n');
    const person = lines.pop()!.replace('P=', '');
    const url = lines.pop()!.replace('URL=', '');
    tried = { P: person, URL: url, PATH: lines.pop()!.replace('PATH=', '') };
    const [intake, me, query] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(intake).toEqual({ node_id: expect.any(String), edge_id: expect.any(String) });
    expect(me).toEqual({ node_id: person, admin: false });
    expect((query!.nodes as Array<{ id: string }>).map((n) => n.id)).toContain(intake!.node_id);
  }, 240_000);

  it('"Publish a first page" restarts the service as Try it does and shows the pushed node on the front page', async () => {
    const [restart, ...publishLines] = publishBlock.filter((line) => !line.startsWith('#'));
    expect(publishLines.pop()).toMatch(/^kill %1\b/);
    // The restart is Try it's first line without `npm ci &&`; the service started above serves it.
    expect(restart!.replace(/#.*/, '').trim()).toBe(startLine!.replace(/#.*/, '').replace(/^npm ci && /, '').trim());
    expect(publishLines.some((line) => /\binntak /.test(line) && !/\bnpx\b/.test(line))).toBe(true);
    expect(tried).toBeDefined();
    const { stdout } = await promisify(execFile)('bash', ['-c', ['set -euo pipefail', ...publishLines].join('\n')], {
      cwd: REPO_ROOT,
      env: { ...env, ...tried },
      timeout: 120_000,
    });
    expect(stdout).toMatch(/<html/i);
    expect(stdout).toContain('acme/widget');
  }, 180_000);

  it('kill %1 (SIGTERM to npm start) stops API, worker and CLI, and npm start exits 0', async () => {
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
    expect(started.messages).toEqual(expect.arrayContaining(['api stopped', 'worker stopped', 'inntak stopped']));
  }, 60_000);
});
