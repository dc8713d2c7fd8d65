import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { migrate, openDatabase, type DatabaseHandle } from '@inntak/postgres';
import { describeWithEngine, freePort, startStoppablePostgres, type StoppablePostgres } from '@inntak/test-support';
import { createCollection, createPerson, OPERATOR } from '@inntak/access';
import { createWebhook } from '@inntak/intake';
import { storesOn } from '@inntak/postgres/testing';

// Issue 37: the API as production runs it (the built main.js), killed with SIGKILL while
// deliveries wait in its spool and started again before the database is back: it accepts
// known webhooks from its spool's store, and replays everything once the database answers.
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const silent = { error() {}, warn() {}, info() {}, debug() {} };

describeWithEngine('postgres', describe, 'an API process killed during an outage', () => {
  let pg: StoppablePostgres;
  let database: DatabaseHandle;
  let spoolDir: string;
  let webhook: { id: string; token: string };

  beforeAll(async () => {
    pg = await startStoppablePostgres();
    await migrate(pg.url);
    database = openDatabase({ connectionString: pg.url, logger: silent });
    const owner = await createPerson(storesOn(database.db).graph, { subject: 'owner', name: 'Eier' });
    const collection = await createCollection(storesOn(database.db).graph, { title: 'Innboks', ownerId: owner.id });
    webhook = await createWebhook(storesOn(database.db).webhookAdmin, OPERATOR, { collectionId: collection.id, templateId: null, createdBy: owner.id });
    spoolDir = mkdtempSync(join(tmpdir(), 'inntak-spool-kill-'));
  }, 60_000);

  afterAll(async () => {
    await database?.close();
    await pg?.dispose();
    rmSync(spoolDir, { recursive: true, force: true });
  });

  async function startApi(port: number): Promise<{ child: ChildProcess; lines: string[] }> {
    const env = { ...process.env, DATABASE_URL: pg.url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', OIDC_ISSUER: '', SPOOL_DIR: join(spoolDir, 'spool') };
    const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const lines: string[] = [];
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        lines.push(line);
        if (line.includes('"api listening"')) resolve();
      });
      void exited.then(() => reject(new Error(`the API exited before listening:\n${lines.join('\n')}`)));
    });
    return { child, lines };
  }

  const post = (port: number, n: number) =>
    fetch(`http://127.0.0.1:${port}/api/webhook/${webhook.token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: `n ${n}`, n }) });

  it('starts again while the database is away, accepts known webhooks into its spool, and replays all it answered 200, each once', async () => {
    const port = await freePort();
    const first = await startApi(port);
    expect((await post(port, 0)).status).toBe(200);
    await pg.stopServer();
    const ids: string[] = [];
    for (let n = 1; n <= 20; n++) {
      const res = await post(port, n);
      expect(res.status).toBe(200);
      ids.push(((await res.json()) as { node_id: string }).node_id);
    }
    const killed = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await killed;

    // Started again while the database is still away: it says so, and still knows the token.
    const second = await startApi(port);
    try {
      expect(second.lines.some((l) => l.includes('the database does not answer; starting anyway'))).toBe(true);
      for (let n = 21; n <= 25; n++) {
        const res = await post(port, n);
        expect(res.status).toBe(200);
        ids.push(((await res.json()) as { node_id: string }).node_id);
      }
      const unknown = await fetch(`http://127.0.0.1:${port}/api/webhook/00000000-0000-4000-8000-0000000000ee`, { method: 'POST' });
      expect([unknown.status, await unknown.json()]).toEqual([500, { error: 'Databasefeil' }]);
      await pg.startServer();
      for (;;) {
        const ready = (await (await fetch(`http://127.0.0.1:${port}/health/ready`)).json()) as { status?: string };
        if (ready.status === 'ok') break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const { rows } = await sql<{ count: string; distinct: string }>`
        select count(*), count(distinct id) as distinct from nodes where id = any(${ids}::uuid[])`.execute(database.db);
      expect(rows[0]).toEqual({ count: '25', distinct: '25' });
      expect(second.lines.some((l) => l.includes('intake spool holds deliveries from before this start'))).toBe(true);
    } finally {
      second.child.kill('SIGTERM');
      await new Promise((resolve) => second.child.once('exit', resolve));
    }
  }, 80_000);
});
