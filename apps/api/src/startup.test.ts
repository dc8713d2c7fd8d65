import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { openDevIssuer } from '@inntak/dev-issuer';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { freePort, startTestIssuer, type TestIssuer } from '@inntak/test-support';
import { createPerson } from '@inntak/access';

// The API as its own process (its build, as `npm start` runs it), started with the settings
// under test, on a real database.
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

interface Line {
  level: string;
  message: string;
  [key: string]: unknown;
}

let h: OpenTestDatabase;
let issuer: TestIssuer;
const dataDir = mkdtempSync(join(tmpdir(), 'inntak-startup-'));
const running: ChildProcess[] = [];

beforeAll(async () => {
  h = await openTestDatabase();
  issuer = await startTestIssuer();
  await createPerson(storesOn(h.db).graph, { subject: 'dev-alice' });
});
afterAll(async () => {
  for (const child of running) child.kill('SIGKILL');
  await issuer.close();
  await h.dispose();
  rmSync(dataDir, { recursive: true, force: true });
});


/** Starts the API and resolves with its log lines once it listens, and its URL. */
async function startApi(env: Record<string, string>): Promise<{ lines: Line[]; url: string }> {
  const port = await freePort();
  const base = { ...process.env };
  for (const name of ['OIDC_ISSUER', 'OIDC_AUDIENCE', 'INNTAK_DEV_ISSUER', 'HOST', 'BASE_URL']) delete base[name];
  const child = spawn(process.execPath, [MAIN], {
    env: { ...base, DATABASE_URL: h.url, PORT: String(port), LOG_LEVEL: 'info', INNTAK_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  running.push(child);
  const lines: Line[] = [];
  await new Promise<void>((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`the API exited with ${code}: ${JSON.stringify(lines)}`)));
    createInterface({ input: child.stdout! }).on('line', (text) => {
      const line = JSON.parse(text) as Line;
      lines.push(line);
      if (line.message === 'api listening') resolve();
    });
  });
  return { lines, url: `http://127.0.0.1:${port}` };
}

describe('API start-up: the identity provider', () => {
  it('an OIDC_ISSUER that does not answer: a warning at start, and /health/ready says issuer "unreachable"', async () => {
    const { lines, url } = await startApi({ OIDC_ISSUER: `http://127.0.0.1:${await freePort()}`, OIDC_AUDIENCE: 'inntak' });
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', message: expect.stringContaining('OIDC_ISSUER does not answer') }));
    const res = await fetch(`${url}/health/ready`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', database: 'ok', issuer: 'unreachable' });
  });

  it('an OIDC_ISSUER that answers: no warning, and /health/ready says issuer "ok"', async () => {
    const { lines, url } = await startApi({ OIDC_ISSUER: issuer.issuer, OIDC_AUDIENCE: issuer.audience });
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
    expect(await (await fetch(`${url}/health/ready`)).json()).toEqual({ status: 'ok', database: 'ok', issuer: 'ok' });
  });
});

describe('API start-up: the development issuer (INNTAK_DEV_ISSUER=1)', () => {
  async function devToken(): Promise<string> {
    return (await openDevIssuer(dataDir)).sign('dev-alice', 5);
  }

  it('is trusted on loopback, where it makes the API listen by default, and says so with a warning', async () => {
    const { lines, url } = await startApi({ INNTAK_DEV_ISSUER: '1' });
    expect(lines).toContainEqual(expect.objectContaining({ message: 'api listening', host: '127.0.0.1' }));
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', message: expect.stringContaining('INNTAK_DEV_ISSUER=1') }));
    const res = await fetch(`${url}/me`, { headers: { authorization: `Bearer ${await devToken()}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ admin: false });
  });

  it('is refused with a warning when the API listens beyond loopback: its tokens answer 401', async () => {
    const { lines, url } = await startApi({ INNTAK_DEV_ISSUER: '1', HOST: '0.0.0.0' });
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', message: expect.stringContaining('INNTAK_DEV_ISSUER=1 ignored') }));
    const res = await fetch(`${url}/me`, { headers: { authorization: `Bearer ${await devToken()}` } });
    expect(res.status).toBe(401);
  });

  it('is not trusted without INNTAK_DEV_ISSUER, next to a real issuer', async () => {
    const { url } = await startApi({ OIDC_ISSUER: issuer.issuer, OIDC_AUDIENCE: issuer.audience });
    const res = await fetch(`${url}/me`, { headers: { authorization: `Bearer ${await devToken()}` } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: 'Ugyldig token' });
  });
});
