import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './__tests__/processes.js';

// `inntak start` (what `npm start` runs) with one bad setting each: it must stop at once, before
// it touches a database, with one JSON line naming the variable and no stack trace. The database
// is one nobody listens on, so an answer naming anything but DATABASE_URL shows it was never asked.
const BIN = fileURLToPath(new URL('../bin/inntak.js', import.meta.url));
const API = fileURLToPath(new URL('../../api/dist/main.js', import.meta.url));
const WORKER = fileURLToPath(new URL('../../worker/dist/main.js', import.meta.url));
const DEAD_DATABASE = 'postgres://postgres@127.0.0.1:1/nothing';

const scratch = mkdtempSync(join(tmpdir(), 'inntak-config-'));
let busy: Server;
let busyPort: number;
beforeAll(async () => {
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, resolve));
  busyPort = (busy.address() as { port: number }).port;
  writeFileSync(join(scratch, 'a-file'), '');
});
afterAll(async () => {
  await new Promise<void>((resolve) => busy.close(() => resolve()));
  rmSync(scratch, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function run(file: string, args: string[], env: Record<string, string | undefined>): Promise<Run> {
  const base: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'info', PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) };
  for (const name of ['DATABASE_URL', 'BASE_URL', 'OIDC_ISSUER', 'OIDC_AUDIENCE', 'BODY_LIMIT', 'INNTAK_DATA_DIR', 'INNTAK_DEV_ISSUER', 'HOST']) delete base[name];
  const merged = Object.fromEntries(Object.entries({ ...base, ...env }).filter(([, v]) => v !== undefined)) as NodeJS.ProcessEnv;
  return new Promise((resolve) => {
    execFile(process.execPath, [file, ...args], { env: merged, timeout: 30_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr });
    });
  });
}

function expectRefusal(result: Run, variable: string): void {
  expect(result.code).toBe(1);
  // The CLI answers {"error"}; the API and the worker log one line at level error (after any warnings).
  const failures = result.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { error?: string; level?: string; message?: string })
    .filter((line) => line.level === 'error' || (line.level === undefined && line.error !== undefined));
  expect(failures).toHaveLength(1);
  expect(failures[0]!.error ?? failures[0]!.message).toContain(variable);
  expect(`${result.stdout}${result.stderr}`).not.toMatch(/^\s+at /m);
  // Refused before anything started: what it did, not how long it took, shows that.
  expect(result.stdout).not.toMatch(/starting embedded PostgreSQL|database migrated|api listening|worker started/);
}

describe('npm start refuses a bad setting before it migrates or starts anything, naming the variable', () => {
  const cases: Array<[string, Record<string, string>, string]> = [
    ['PORT=abc', { PORT: 'abc' }, 'PORT'],
    ['PORT=""', { PORT: '' }, 'PORT'],
    ['PORT=8.08e3', { PORT: '8.08e3' }, 'PORT'],
    ['BODY_LIMIT=huge', { BODY_LIMIT: 'huge' }, 'BODY_LIMIT'],
    ['BODY_LIMIT above the 100mb maximum', { BODY_LIMIT: '2gb' }, 'BODY_LIMIT'],
    ['LOG_LEVEL=bogus', { LOG_LEVEL: 'bogus' }, 'LOG_LEVEL'],
    ['BASE_URL="not a url"', { BASE_URL: 'not a url' }, 'BASE_URL'],
    ['OIDC_ISSUER not a URL', { OIDC_ISSUER: 'idp.example', OIDC_AUDIENCE: 'inntak' }, 'OIDC_ISSUER'],
    ['OIDC_ISSUER plain http:// off loopback', { OIDC_ISSUER: 'http://idp.example', OIDC_AUDIENCE: 'inntak' }, 'OIDC_ISSUER'],
    ['INNTAK_DEV_ISSUER=yes', { INNTAK_DEV_ISSUER: 'yes' }, 'INNTAK_DEV_ISSUER'],
    ['DATABASE_URL not a URL', { DATABASE_URL: 'host=localhost dbname=inntak' }, 'DATABASE_URL'],
    ['TTS_MAX_TEXT_CHARS=many', { TTS_MAX_TEXT_CHARS: 'many' }, 'TTS_MAX_TEXT_CHARS'],
    ['TTS_MAX_AUDIO_SECONDS=0', { TTS_MAX_AUDIO_SECONDS: '0' }, 'TTS_MAX_AUDIO_SECONDS'],
    ['TTS_JOBS_PER_PERSON=-1', { TTS_JOBS_PER_PERSON: '-1' }, 'TTS_JOBS_PER_PERSON'],
    ['MEDIA_BYTES_PER_COLLECTION=lots', { MEDIA_BYTES_PER_COLLECTION: 'lots' }, 'MEDIA_BYTES_PER_COLLECTION'],
  ];
  it.each(cases)('%s', async (_what, env, variable) => {
    expectRefusal(await run(BIN, ['start'], { DATABASE_URL: DEAD_DATABASE, ...env }), variable);
  });

  it('a port already in use', async () => {
    expectRefusal(await run(BIN, ['start'], { DATABASE_URL: DEAD_DATABASE, PORT: String(busyPort) }), `PORT ${busyPort} is already in use`);
  });

  it('DATABASE_URL that does not answer', async () => {
    expectRefusal(await run(BIN, ['start'], { DATABASE_URL: DEAD_DATABASE }), 'DATABASE_URL');
  });

  it.each([
    ['a file', () => join(scratch, 'a-file')],
    ['a path under a file', () => join(scratch, 'a-file', 'data')],
    ['a path under /proc (where a recursive mkdir never returns)', () => '/proc/inntak-data'],
    ['a read-only place', () => '/sys/inntak-data'],
  ])('INNTAK_DATA_DIR that is %s, without hanging', async (_what, dir) => {
    expectRefusal(await run(BIN, ['start'], { INNTAK_DATA_DIR: dir() }), 'INNTAK_DATA_DIR');
  });

  it.each([
    ['a file', () => join(scratch, 'a-file')],
    ['a path under a file', () => join(scratch, 'a-file', 'media')],
    ['a path under /proc (where the worker used to spin and ignore signals)', () => '/proc/inntak-media'],
  ])('STORAGE_DIR that is %s, without hanging', async (_what, dir) => {
    expectRefusal(await run(BIN, ['start'], { DATABASE_URL: DEAD_DATABASE, STORAGE_DIR: dir() }), 'STORAGE_DIR');
  });
});

describe('the API and the worker run alone refuse a bad setting the same way', () => {
  it.each([
    ['PORT=8.08e3', { PORT: '8.08e3' }, 'PORT'],
    ['OIDC_ISSUER plain http:// off loopback', { OIDC_ISSUER: 'http://idp.example', OIDC_AUDIENCE: 'inntak' }, 'OIDC_ISSUER'],
    // Without the intake spool: with it the API starts and waits (issue 37, apps/api/src/webhook-intake-outage-kill.test.ts).
    ['DATABASE_URL that does not answer', { SPOOL_DIR: 'off' }, 'DATABASE_URL'],
  ])('API: %s', async (_what, env, variable) => {
    expectRefusal(await run(API, [], { DATABASE_URL: DEAD_DATABASE, ...env }), variable);
  });

  it('API: a port already in use', async () => {
    // The API checks the database before it listens; this one answers, so PORT is what fails.
    const result = await run(API, [], { DATABASE_URL: process.env.DATABASE_URL ?? DEAD_DATABASE, PORT: String(busyPort), SPOOL_DIR: 'off' });
    expectRefusal(result, process.env.DATABASE_URL ? 'PORT' : 'DATABASE_URL');
  });

  it('worker: LOG_LEVEL=bogus', async () => {
    expectRefusal(await run(WORKER, [], { DATABASE_URL: DEAD_DATABASE, LOG_LEVEL: 'bogus' }), 'LOG_LEVEL');
  });

  it('worker: DATABASE_URL that does not answer', async () => {
    expectRefusal(await run(WORKER, [], { DATABASE_URL: DEAD_DATABASE }), 'DATABASE_URL');
  });

  it('a DATABASE_URL with a wrong password says the password was refused, not that the database does not answer (CLI, API, worker)', async () => {
    // The test run's server asks for passwords (the embedded one: password authentication).
    const url = new URL(process.env.INNTAK_TEST_ADMIN_URL!);
    url.password = 'feil-passord';
    for (const [file, args] of [
      [BIN, ['start']],
      [API, []],
      [WORKER, []],
    ] as const) {
      const result = await run(file, [...args], { DATABASE_URL: url.href });
      expectRefusal(result, 'DATABASE_URL');
      expect(result.stdout).toContain('refused the password (28P01');
      expect(result.stdout).not.toContain('does not answer');
    }
  });
});
