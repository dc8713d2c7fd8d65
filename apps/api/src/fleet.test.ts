import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { migrate, openDatabase, type DatabaseHandle } from '@inntak/postgres';
import { describeWithEngine, engineUnavailable, freePort, startHotStandby, startTestIssuer, type HotStandby, type TestIssuer } from '@inntak/test-support';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import { cookieFrom, roundRobin, startApiProcess, startWorkerProcess, type ApiProcess } from './__tests__/fleet-scene.js';
import { createPerson } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

// Issue 38: three API processes on one primary and its hot standby, behind a round-robin proxy,
// each started with only what a fleet shares (DATABASE_URL, READ_DATABASE_URL, the identity
// provider, STORAGE_DIR): the rows of the issue's table, measured on the old main, turned.
// Rows about one process alone are tested beside their code (docs/scaling.md, "Topology").
const unavailable = engineUnavailable('postgres');
const logger = { error() {}, warn() {}, info() {}, debug() {} };
const storageDir = mkdtempSync(join(tmpdir(), 'inntak-fleet-'));

let servers: HotStandby;
let primary: DatabaseHandle;
let issuer: TestIssuer;
let fleet: ApiProcess[];
let proxy: { url: string; close(): Promise<void> };
let owner: string;
let closedPort: number;
let workers: ChildProcess[];
/** The hook orchestrations post to; a request to /two is held unanswered while `holdTwo` is set. */
let hook: Server;
let hookHost: string;
const hooked: string[] = [];
let holdTwo: (() => void) | undefined;

beforeAll(async () => {
  if (unavailable) return;
  [servers, issuer] = await Promise.all([startHotStandby(), startTestIssuer()]);
  await migrate(servers.primaryUrl);
  primary = openDatabase({ connectionString: servers.primaryUrl, logger });
  await createPerson(storesOn(primary.db).graph, { subject: 'flåte-eier' });
  owner = `Bearer ${await issuer.token('flåte-eier')}`;
  closedPort = await freePort();
  const env = {
    DATABASE_URL: servers.primaryUrl,
    // The second replica is a closed port: a misconfiguration every process must report.
    READ_DATABASE_URL: `${servers.standbyUrl},postgres://postgres@127.0.0.1:${closedPort}/postgres`,
    OIDC_ISSUER: issuer.issuer,
    OIDC_AUDIENCE: issuer.audience,
    STORAGE_DIR: storageDir,
  };
  hook = createServer((req, res) => {
    hooked.push(req.url ?? '');
    req.resume();
    if (req.url === '/two' && holdTwo) {
      holdTwo();
      holdTwo = undefined;
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookHost = `127.0.0.1:${(hook.address() as AddressInfo).port}`;
  // Workers share DATABASE_URL and STORAGE_DIR; the heartbeat is quickened so a dead one is seen in seconds.
  const workerEnv = { DATABASE_URL: servers.primaryUrl, STORAGE_DIR: storageDir, ORCHESTRATION_HTTP_ALLOW: hookHost, JOB_HEARTBEAT_MS: '200', JOB_WORKER_STALE_MS: '2500', WORKER_CRONTAB: '' };
  [fleet, workers] = await Promise.all([
    Promise.all([0, 1, 2].map(() => startApiProcess(env))),
    Promise.all([0, 1].map(async () => (await startWorkerProcess(workerEnv)).child)),
  ]);
  proxy = await roundRobin(fleet.map((p) => p.url));
}, 120_000);
afterAll(async () => {
  if (unavailable) return;
  await proxy.close();
  for (const p of [...fleet.map((f) => f.child), ...workers]) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  hook.closeAllConnections();
  hook.close();
  await primary.close();
  await Promise.all([servers.stop(), issuer.close()]);
  rmSync(storageDir, { recursive: true, force: true });
});

const call = (path: string, init: RequestInit & { json?: unknown } = {}) =>
  fetch(`${proxy.url}${path}`, {
    redirect: 'manual',
    ...init,
    headers: { ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}), ...(init.headers as Record<string, string>) },
    ...(init.json !== undefined ? { method: 'POST', body: JSON.stringify(init.json) } : {}),
  });
const intention = async (name: string, body: unknown) => {
  const res = await call(`/intentions/${name}`, { headers: { authorization: owner }, json: body });
  expect(res.status).toBeLessThan(300);
  return (await res.json()) as Record<string, string>;
};
const standbyIn = async () => {
  const states = await Promise.all(fleet.map(async (p) => ((await (await fetch(`${p.url}/health/ready`)).json()) as { read_replicas: { name: string; in_rotation: boolean }[] }).read_replicas[0]!.in_rotation));
  return states;
};
const until = async (check: () => Promise<boolean>, seconds: number) => {
  const deadline = Date.now() + seconds * 1000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${seconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describeWithEngine('postgres', describe, 'three API processes behind a round-robin proxy (issue 38)', () => {
  it('a misconfigured replica is logged at start by every process and shown in /health/ready; the good one is in rotation', async () => {
    for (const p of fleet) {
      expect(p.lines).toContainEqual(expect.objectContaining({ level: 'warn', message: 'read replica out of rotation', replica: `127.0.0.1:${closedPort}/postgres` }));
      const ready = (await (await fetch(`${p.url}/health/ready`)).json()) as { read_replicas: unknown[] };
      expect(ready.read_replicas).toEqual([expect.objectContaining({ in_rotation: true }), { name: `127.0.0.1:${closedPort}/postgres`, in_rotation: false, reason: expect.stringMatching(/^unreachable/) }]);
    }
  });

  it('A/B: 6 of 6 clicks count on another process than their impression; a browser reloading through all three counts once', async () => {
    const pub = await intention('create_publication', { title: 'Flåtebladet', slug: 'flate' });
    const node = await intention('create_node', { node_kind: 'content', title: 'Sak', content: 'Tekst', visibility: 'hidden' });
    await intention('publish_article', { publication_id: pub.id, node_id: node.id });
    for (const title of ['A', 'B']) await intention('create_variant', { publication_id: pub.id, article_id: node.id, variant_type: 'headline', title });
    const clickOf = (page: string) => new RegExp(`href="[^"]*(/t/${node.id}[^"]*)"`).exec(page)![1]!.replace(/&amp;/g, '&');
    // Seven readers; the proxy alternates, so each click lands on another process than its page.
    for (let i = 0; i < 6; i++) {
      const page = await (await call('/pub/flate', { headers: { 'user-agent': `leser-${i}` } })).text();
      expect((await call(`/pub/flate${clickOf(page)}`, { headers: { 'user-agent': `leser-${i}` } })).status).toBe(302);
    }
    let cookie = '';
    for (let i = 0; i < 3; i++) {
      const res = await call('/pub/flate', { headers: { 'user-agent': 'omlaster', cookie } });
      cookie = cookieFrom(res, 'inntak_ab') ?? cookie;
      await res.text();
    }
    const counts = async () => (await sql<{ i: string; c: string }>`select coalesce(sum(impressions), 0) as i, coalesce(sum(clicks), 0) as c from ab_events`.execute(primary.db)).rows[0]!;
    await until(async () => Number((await counts()).i) >= 7, 10);
    expect(await counts()).toEqual({ i: '7', c: '6' });
  });

  it('a signed media link made on one process opens on the others: 6 of 6 answer 200, with no MEDIA_URL_SECRET', async () => {
    const collection = await intention('create_collection', { title: 'Lyd' });
    const wav = await readFile(join(import.meta.dirname, '__tests__', 'media-fixtures', 'tone.wav'));
    const uploaded = await call(`/media?collection_id=${collection.id}`, { method: 'POST', headers: { authorization: owner, 'content-type': 'application/octet-stream' }, body: wav });
    const { id } = (await uploaded.json()) as { id: string };
    let opened = 0;
    for (let i = 0; i < 2; i++) {
      const { url } = (await (await call(`/media/${id}/link`, { headers: { authorization: owner } })).json()) as { url: string };
      const path = new URL(url).pathname + new URL(url).search;
      for (let k = 0; k < 3; k++) {
        const res = await call(path);
        await res.arrayBuffer();
        if (res.status === 200) opened++;
      }
    }
    expect(opened).toBe(6);
  });

  it('read-your-writes with the standby behind: 20 of 20 reads on another process see the write, the client only keeping cookies', async () => {
    const standby = openDatabase({ connectionString: servers.standbyUrl, logger, max: 1 });
    await sql`select pg_wal_replay_pause()`.execute(standby.db);
    let seen = 0;
    try {
      for (let i = 0; i < 20; i++) {
        const written = await call('/intentions/create_node', { headers: { authorization: owner }, json: { node_kind: 'content', title: `Ny ${i}`, visibility: 'hidden' } });
        const cookie = cookieFrom(written, 'inntak_read_after')!;
        const { id } = (await written.json()) as { id: string };
        if ((await call(`/nodes/${id}`, { headers: { authorization: owner, cookie } })).status === 200) seen++;
      }
    } finally {
      await sql`select pg_wal_replay_resume()`.execute(standby.db);
      await standby.close();
    }
    expect(seen).toBe(20);
  });

  it('a worker SIGKILLed during a run’s http_post: the other worker takes the run up again at that step; the log says it may have been sent twice', async () => {
    const script = `steps:\n  - action: http_post\n    with: { url: "http://${hookHost}/one" }\n  - action: http_post\n    with: { url: "http://${hookHost}/two" }\n`;
    const orchestration = await intention('create_node', { node_kind: 'orchestration', title: 'Flåtekrok', content: script, metadata: { trigger: { event: 'manual' } } });
    const held = new Promise<void>((resolve) => (holdTwo = resolve));
    await intention('run_orchestration', { id: orchestration.id });
    await held;
    const { rows } = await sql<{ worker_process: string }>`select worker_process from job_queue where job_type = 'orchestrate' and status = 'running'`.execute(primary.db);
    const pid = Number(rows[0]!.worker_process.split(':')[1]);
    const dying = workers.find((w) => w.pid === pid)!;
    dying.kill('SIGKILL');
    const run = async () => (await sql<{ status: string }>`select status from orchestration_runs where orchestration_id = ${orchestration.id}`.execute(primary.db)).rows[0]!.status;
    await until(async () => (await run()) === 'completed', 20);
    expect(hooked).toEqual(['/one', '/two', '/two']);
    const log = await sql<{ step: number; status: string; error: string | null }>`select step, status, error from orchestration_log where orchestration_id = ${orchestration.id} order by id`.execute(primary.db);
    expect(log.rows.map((r) => [r.step, r.status])).toEqual([[1, 'ok'], [2, 'failed'], [2, 'ok']]);
    expect(log.rows[1]!.error).toContain('(worker lost)');
  }, 60_000);

  it('the standby frozen (SIGSTOP): no read answers 5xx or 429, and it leaves rotation on every process within 5 s', async () => {
    await until(async () => (await standbyIn()).every(Boolean), 15);
    servers.freezeStandby(true);
    const frozenAt = Date.now();
    try {
      const statuses = await Promise.all(fleet.map(async (_, k) => {
        const mine: number[] = [];
        for (let i = 0; i < 5; i++) mine.push((await call(`/query/nodes?limit=5&q=Ny${k}`, { headers: { authorization: owner } })).status);
        return mine;
      }));
      expect(statuses.flat().filter((s) => s !== 200)).toEqual([]);
      await until(async () => (await standbyIn()).every((inRotation) => !inRotation), 5 - (Date.now() - frozenAt) / 1000);
    } finally {
      servers.freezeStandby(false);
    }
  }, 60_000);

  it('the standby stopped (immediate) under reads: none of them answers 5xx', async () => {
    await until(async () => (await standbyIn()).every(Boolean), 15);
    const statuses: number[] = [];
    let reading = true;
    const readers = Promise.all([0, 1, 2].map(async () => {
      while (reading) statuses.push((await call('/query/nodes?limit=5', { headers: { authorization: owner } })).status);
    }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await servers.stopStandby('immediate');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    reading = false;
    await readers;
    expect(statuses.length).toBeGreaterThan(3);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  }, 60_000);
});
