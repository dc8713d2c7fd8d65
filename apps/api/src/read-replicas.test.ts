import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { sql } from 'kysely';
import { uuidv7 } from '@inntak/core';
import { migrate, openDatabase, ReadReplicas, type DatabaseHandle } from '@inntak/postgres';
import { sharedKey } from '@inntak/postgres/graph';
import { PostgresNodeQueryStore } from '@inntak/postgres/graph';
import { describeWithEngine, engineUnavailable, freePort, startHotStandby, type HotStandby } from '@inntak/test-support';
import { readRouting } from './read-routing.js';
import { createPerson } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

// A real primary and streaming hot standby from Debian's PostgreSQL binaries (README, "Optional
// engines"). Where they are missing the tests below are skipped, saying why in one line.
const unavailable = engineUnavailable('postgres');

const logged: Array<{ message: string; fields: Record<string, unknown> }> = [];
const logger = {
  error() {},
  debug() {},
  info: (message: string, fields: Record<string, unknown> = {}) => logged.push({ message, fields }),
  warn: (message: string, fields: Record<string, unknown> = {}) => logged.push({ message, fields }),
};
let servers: HotStandby;
let primary: DatabaseHandle;
let standby: DatabaseHandle;
let writer: string;

beforeAll(async () => {
  if (unavailable) return;
  servers = await startHotStandby();
  await migrate(servers.primaryUrl);
  primary = openDatabase({ connectionString: servers.primaryUrl, logger });
  standby = openDatabase({ connectionString: servers.standbyUrl, logger });
  writer = (await createPerson(storesOn(primary.db).graph, { subject: 'writer' })).id;
}, 120_000);
afterAll(async () => {
  if (unavailable) return;
  await Promise.all([primary.close(), standby.close()]);
  await servers.stop();
});

function replicas(options: { maxLagBytes?: number; waitMs?: number } = {}) {
  return new ReadReplicas({ primary, replicas: [{ name: 'standby', database: standby }], logger, ...options });
}

/** Where a read ran: the standby is in recovery, the primary is not. */
async function server(db: DatabaseHandle['db']): Promise<'standby' | 'primary'> {
  const { rows } = await sql<{ standby: boolean }>`select pg_is_in_recovery() as standby`.execute(db);
  return rows[0]!.standby ? 'standby' : 'primary';
}

async function openNode(title: string): Promise<string> {
  const id = uuidv7();
  await primary.db.insertInto('nodes').values({ id, node_kind: 'content', title, content: null, visibility: 'open', metadata: '{}', created_by: writer }).execute();
  return id;
}

describeWithEngine('postgres', describe, 'reads on a streaming replica (READ_DATABASE_URL)', () => {
  it('a read goes to the replica in rotation; replay paused past the lag limit takes it out, logged, and reads go to the primary', async () => {
    const router = replicas({ maxLagBytes: 0 });
    // No lag allowed at all: wait for the standby to have replayed the setup's writes.
    for (let i = 0; i < 100 && router.rotation().length === 0; i++) {
      await router.check();
      if (router.rotation().length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(router.rotation()).toEqual(['standby']);
    expect(await server(await router.reader())).toBe('standby');
    await sql`select pg_wal_replay_pause()`.execute(standby.db);
    try {
      await openNode('while paused');
      await router.check();
      expect(router.rotation()).toEqual([]);
      expect(logged).toContainEqual({ message: 'read replica out of rotation', fields: expect.objectContaining({ replica: 'standby', reason: expect.stringMatching(/^lags \d+ bytes/) }) });
      expect(await server(await router.reader())).toBe('primary');
    } finally {
      await sql`select pg_wal_replay_resume()`.execute(standby.db);
    }
    for (let i = 0; i < 100 && router.rotation().length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await router.check();
    }
    expect(router.rotation()).toEqual(['standby']);
    expect(logged).toContainEqual({ message: 'read replica in rotation', fields: { replica: 'standby' } });
  });

  it('read-your-writes: through the routing middleware a caller sees its write at once; a replica that has not replayed it is not used', async () => {
    const router = replicas({ waitMs: 100 });
    await router.check();
    const store = new PostgresNodeQueryStore(primary.db, {}, (fn) => router.read(fn));
    const app = express();
    app.use(readRouting(router, logger));
    app.post('/write', (_req, res, next) => {
      openNode('skrevet nettopp').then((id) => res.json({ id }), next);
    });
    app.get('/read', (_req, res, next) => {
      Promise.all([store.queryNodes(writer, { limit: 10, text: 'skrevet' }), router.reader().then(server)]).then(
        ([page, where]) => res.json({ ids: page.rows.map((r) => r.node.id), where }),
        next,
      );
    });
    // Replay paused: the standby can never catch up, so the writer's read must use the primary.
    await sql`select pg_wal_replay_pause()`.execute(standby.db);
    try {
      const written = await request(app).post('/write').set('Authorization', 'Bearer writer');
      const mine = await request(app).get('/read').set('Authorization', 'Bearer writer');
      expect(mine.body).toEqual({ ids: [written.body.id], where: 'primary' });
      // Another caller wrote nothing: the standby serves it, without the new node yet.
      const other = await request(app).get('/read').set('Authorization', 'Bearer someone-else');
      expect(other.body).toEqual({ ids: [], where: 'standby' });
    } finally {
      await sql`select pg_wal_replay_resume()`.execute(standby.db);
    }
    // Replayed: the writer reads from the standby again, and sees the node there.
    let read = await request(app).get('/read').set('Authorization', 'Bearer writer');
    for (let i = 0; i < 50 && read.body.where !== 'standby'; i++) read = await request(app).get('/read').set('Authorization', 'Bearer writer');
    expect(read.body.where).toBe('standby');
    expect(read.body.ids).toHaveLength(1);
  });

  it('read-your-writes follows the person, not the token: a read with a refreshed token after a write does not use a replica behind it', async () => {
    const router = replicas({ waitMs: 100 });
    await router.check();
    const store = new PostgresNodeQueryStore(primary.db, {}, (fn) => router.read(fn));
    const app = express();
    app.use(readRouting(router, logger));
    // As auth.ts leaves it: every token below belongs to the writer.
    app.use((_req, res, next) => {
      res.locals.caller = { personId: writer, isAdmin: false };
      next();
    });
    app.post('/write', (_req, res, next) => {
      openNode('fornyet token').then((id) => res.json({ id }), next);
    });
    app.get('/read', (_req, res, next) => {
      Promise.all([store.queryNodes(writer, { limit: 10, text: 'fornyet' }), router.reader().then(server)]).then(([page, where]) => res.json({ ids: page.rows.map((r) => r.node.id), where }), next);
    });
    await sql`select pg_wal_replay_pause()`.execute(standby.db);
    try {
      const written = await request(app).post('/write').set('Authorization', 'Bearer gammelt');
      const read = await request(app).get('/read').set('Authorization', 'Bearer fornyet');
      expect(read.body).toEqual({ ids: [written.body.id], where: 'primary' });
    } finally {
      await sql`select pg_wal_replay_resume()`.execute(standby.db);
    }
  });

  it("across API processes: a write's answer carries its WAL position, and a read sending it back is not answered from a replica behind it", async () => {
    // Two API processes, each with its own memory of writes: the write goes through one, the
    // read through the other (a load balancer without stickiness).
    const appOf = () => {
      const router = replicas({ waitMs: 100 });
      const store = new PostgresNodeQueryStore(primary.db, {}, (fn) => router.read(fn));
      const app = express();
      app.use(readRouting(router, logger));
      app.post('/write', (_req, res, next) => {
        // As auth.ts leaves an authenticated person: only their writes learn the position.
        res.locals.caller = { personId: writer, isAdmin: false };
        openNode('andre prosess').then((id) => res.json({ id }), next);
      });
      app.post('/refuse', (_req, res) => {
        res.status(403).json({ error: 'nei' });
      });
      app.get('/read', (_req, res, next) => {
        Promise.all([store.queryNodes(writer, { limit: 10, text: 'prosess' }), router.reader().then(server)]).then(
          ([page, where]) => res.json({ ids: page.rows.map((r) => r.node.id), where }),
          next,
        );
      });
      app.use(((err, _req, res, _next) => res.status(400).json({ error: (err as Error).message })) as express.ErrorRequestHandler);
      return { app, router };
    };
    const [one, two] = [appOf(), appOf()];
    await Promise.all([one.router.check(), two.router.check()]);
    await sql`select pg_wal_replay_pause()`.execute(standby.db);
    try {
      const written = await request(one.app).post('/write').set('Authorization', 'Bearer writer');
      const position = written.headers['inntak-write-position'];
      expect(position).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
      // Without the position the other process knows nothing of the write: the standby answers, stale.
      expect((await request(two.app).get('/read').set('Authorization', 'Bearer writer')).body).toEqual({ ids: [], where: 'standby' });
      // With it, the standby (paused before the write) cannot serve: the primary answers, with the write.
      const read = await request(two.app).get('/read').set('Authorization', 'Bearer writer').set('Inntak-Read-After', position);
      expect(read.body).toEqual({ ids: [written.body.id], where: 'primary' });
      const anonymous = await request(two.app).get('/read').set('Inntak-Read-After', position);
      expect(anonymous.body.where).toBe('primary');
      const bad = await request(two.app).get('/read').set('Inntak-Read-After', 'i går');
      expect([bad.status, bad.body.error]).toEqual([400, expect.stringContaining('Inntak-Read-After')]);
      // A refused write learns no position.
      const refused = await request(one.app).post('/refuse').set('Authorization', 'Bearer writer');
      expect([refused.status, refused.headers['inntak-write-position']]).toEqual([403, undefined]);
    } finally {
      await sql`select pg_wal_replay_resume()`.execute(standby.db);
    }
  });

  it('a Read-After position ahead of the primary is read as the primary’s own position: a replica that has replayed it answers, no one is made to wait it out', async () => {
    // A wait long enough that reading the primary after it would be the old behaviour, not luck.
    const router = replicas({ waitMs: 5000 });
    await router.check();
    const app = express();
    app.use(readRouting(router, logger));
    app.get('/read', (_req, res, next) => {
      router.reader().then(server).then((where) => res.json({ where }), next);
    });
    const forged = await request(app).get('/read').set('Inntak-Read-After', 'FFFFFFFF/FFFFFFFF');
    expect(forged.status).toBe(200);
    expect(forged.body).toEqual({ where: 'standby' });
    const theirs = await request(app).get('/read').set('Authorization', 'Bearer someone').set('Inntak-Read-After', 'FFFFFFFF/FFFFFFFF');
    expect(theirs.body).toEqual({ where: 'standby' });
  });

  it('read-your-writes across processes without the client echoing anything: the write sets a signed cookie, and another process reads after it', async () => {
    const key = sharedKey(primary.db, 'read_position');
    const appOf = () => {
      const router = replicas({ waitMs: 100 });
      const store = new PostgresNodeQueryStore(primary.db, {}, (fn) => router.read(fn));
      const app = express();
      app.use(readRouting(router, logger, key));
      app.post('/write', (_req, res, next) => {
        res.locals.caller = { personId: writer, isAdmin: false };
        openNode('informasjonskapsel').then((id) => res.json({ id }), next);
      });
      app.get('/read', (_req, res, next) => {
        Promise.all([store.queryNodes(writer, { limit: 10, text: 'informasjonskapsel' }), router.reader().then(server)]).then(
          ([page, where]) => res.json({ ids: page.rows.map((r) => r.node.id), where }),
          next,
        );
      });
      return { app, router };
    };
    const fleet = [appOf(), appOf(), appOf()];
    await Promise.all(fleet.map((p) => p.router.check()));
    await sql`select pg_wal_replay_pause()`.execute(standby.db);
    try {
      let seen = 0;
      for (let i = 0; i < 6; i++) {
        const written = await request(fleet[i % 3]!.app).post('/write').set('Authorization', `Bearer token-${i}`);
        const cookie = (written.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('inntak_read_after='))!.split(';')[0]!;
        // Another process, and another token of the same person (a refreshed one): a browser sends its cookies back by itself.
        const read = await request(fleet[(i + 1) % 3]!.app).get('/read').set('Authorization', `Bearer token-${i}-refreshed`).set('Cookie', cookie);
        if ((read.body.ids as string[]).includes(written.body.id as string)) seen++;
      }
      expect(seen).toBe(6);
      const forged = await request(fleet[0]!.app).get('/read').set('Cookie', 'inntak_read_after=0/0.99999999999.AAAAAAAAAAAAAAAAAAAAAA');
      expect(forged.body.where).toBe('standby');
    } finally {
      await sql`select pg_wal_replay_resume()`.execute(standby.db);
    }
  });

  it('a misconfigured replica (a closed port) is logged at start as out of rotation, with its reason, and reads use the primary', async () => {
    const closed = openDatabase({ connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/postgres`, logger, timeouts: { connectMs: 500, queryMs: 500 } });
    try {
      const router = new ReadReplicas({ primary, replicas: [{ name: 'feilkonfigurert', database: closed }], logger });
      await router.start();
      router.stop();
      expect(logged).toContainEqual({ message: 'read replica out of rotation', fields: { replica: 'feilkonfigurert', reason: expect.stringMatching(/^unreachable/) } });
      expect(router.status()).toEqual([{ name: 'feilkonfigurert', in_rotation: false, reason: expect.stringMatching(/^unreachable/) }]);
      expect(await router.read(server)).toBe('primary');
    } finally {
      await closed.close();
    }
  });

  it('a frozen replica (SIGSTOP): reads already routed to it are answered from the primary in the same request, and it leaves rotation at its next check', async () => {
    const bounded = openDatabase({ connectionString: servers.standbyUrl, logger, timeouts: { connectMs: 500, queryMs: 1000 } });
    const router = new ReadReplicas({ primary, replicas: [{ name: 'frossen', database: bounded }], logger, checkTimeoutMs: 500 });
    try {
      await router.check();
      expect(router.rotation()).toEqual(['frossen']);
      servers.freezeStandby(true);
      // Routed to the replica before any check saw it freeze: each is answered, by the primary.
      const answers = await Promise.all(Array.from({ length: 5 }, () => router.read(server)));
      expect(answers).toEqual(Array(5).fill('primary'));
      await router.check();
      expect(router.status()).toEqual([{ name: 'frossen', in_rotation: false, reason: expect.any(String) }]);
      expect(logged).toContainEqual({ message: 'read replica out of rotation', fields: { replica: 'frossen', reason: expect.any(String) } });
    } finally {
      servers.freezeStandby(false);
      await bounded.close();
    }
  }, 30_000);

  it('a replica stopped under reads: the read in flight and the first after it answer from the primary, none fails; it leaves rotation, logged', async () => {
    const router = replicas();
    await router.check();
    expect(router.rotation()).toEqual(['standby']);
    // A read holding its replica connection while the standby stops under it.
    const inFlight = router.read(async (db) => {
      if ((await server(db)) === 'standby') await sql`select pg_sleep(5)`.execute(db);
      return server(db);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await servers.stopStandby();
    expect(await inFlight).toBe('primary');
    // No check has run since the stop: the reads right after it are answered all the same.
    expect(await Promise.all([router.read(server), router.read(server), router.read(server)])).toEqual(['primary', 'primary', 'primary']);
    // The failed read took it out at once, saying why; the next check keeps it out.
    expect(logged).toContainEqual({ message: 'read replica out of rotation', fields: { replica: 'standby', reason: expect.stringMatching(/^a read failed: terminating connection/) } });
    await router.check();
    expect(router.status()).toEqual([{ name: 'standby', in_rotation: false, reason: expect.stringMatching(/^unreachable/) }]);
    expect(await server(await router.consistent())).toBe('primary');
    expect(await server(await router.reader())).toBe('primary');
  });
});
