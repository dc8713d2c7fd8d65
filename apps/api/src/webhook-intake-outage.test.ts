import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { describeWithEngine } from '@inntak/test-support';
import { OPERATOR } from '@inntak/access';
import { createWebhook } from '@inntak/intake';
import { storesOn } from '@inntak/postgres/testing';
import { connectStream, type StreamClient } from './__tests__/realtime-helpers.js';
import { pause, startOutageScene, type Answer, type OutageScene } from './__tests__/outage-scene.js';

// Issue 37: a real PostgreSQL is stopped under load; known webhooks keep being answered 200
// from the durable spool, and everything answered is stored once, in order, when it is back.

interface Sent extends Answer {
  webhook: 'a' | 'b';
  n: number;
}

describeWithEngine('postgres', describe, 'intake through a PostgreSQL outage (the durable spool)', () => {
  let scene: OutageScene;
  let stream: StreamClient;
  let a: { id: string; token: string };
  let b: { id: string; token: string };

  beforeAll(async () => {
    scene = await startOutageScene();
    ({ a, b } = scene);
    stream = await connectStream(scene.api.url, await scene.issuer.token('owner'));
  }, 60_000);

  afterAll(async () => {
    stream?.close();
    await scene?.close();
  });

  async function post(webhook: 'a' | 'b', n: number, token = webhook === 'a' ? a.token : b.token): Promise<Sent> {
    return { webhook, n, ...(await scene.post(token, { title: `${webhook} ${n}`, n })) };
  }

  /** Sends to both webhooks at `perSecond` while `during` runs, in arrival order per webhook. */
  async function underLoad(perSecond: number, during: () => Promise<void>): Promise<Sent[]> {
    const answers: Array<Promise<Sent>> = [];
    let n = 0;
    const timer = setInterval(() => {
      n++;
      answers.push(post(n % 2 === 0 ? 'a' : 'b', n));
    }, 1000 / perSecond);
    try {
      await during();
    } finally {
      clearInterval(timer);
    }
    return Promise.all(answers);
  }

  const drained = () => scene.drained();

  /** Posts to a token until it answers `status`: a change reaches each process's cache by its change stream, within milliseconds. */
  async function untilStatus(token: string, status: number): Promise<void> {
    for (let tries = 0; ; tries++) {
      const res = await scene.post(token, { title: 'probe', tries });
      if (res.status === status) return;
      if (tries > 100) throw new Error(`the token still answers ${res.status}, not ${status}`);
      await pause(20);
    }
  }

  const tokenLookups = async () => {
    const res = await fetch(`${scene.api.url}/metrics?format=json`, { headers: { authorization: 'Bearer metrics-token-for-the-outage-test' } });
    return ((await res.json()) as { token_lookups: { memory: number; database: number } }).token_lookups;
  };

  it('answers every request to a known webhook 200 through a 5 s outage, and stores each once, in order, with access rows and /ws events, once it is back', async () => {
    // Both webhooks are known (looked up once while the database answered).
    expect((await post('a', 0)).status).toBe(200);
    expect((await post('b', 0)).status).toBe(200);
    const sent = await underLoad(30, async () => {
      await pause(500);
      await scene.pg.stopServer();
      await pause(5000);
      await scene.pg.startServer();
      await pause(500);
    });
    expect(sent.filter((s) => s.status !== 200)).toEqual([]);
    await drained();

    const ids = sent.map((s) => s.body.node_id!);
    const stored = await sql<{ id: string; n: number; created_at: Date; webhook: string }>`
      select id, (metadata -> 'payload' ->> 'n')::int as n, created_at, created_by as webhook
        from nodes where id = any(${ids}::uuid[]) order by created_at, id`.execute(scene.database.db);
    expect(stored.rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    const logged = await sql<{ count: string }>`select count(*) from webhook_deliveries where node_id = any(${ids}::uuid[])`.execute(scene.database.db);
    expect(Number(logged.rows[0]!.count)).toBe(ids.length);
    // Per webhook, what arrived later was not written earlier.
    for (const webhook of [a.id, b.id]) {
      const rows = sent.filter((s) => (s.webhook === 'a' ? a.id : b.id) === webhook).map((s) => stored.rows.find((r) => r.id === s.body.node_id)!);
      for (let i = 1; i < rows.length; i++) expect(rows[i]!.created_at.getTime()).toBeGreaterThanOrEqual(rows[i - 1]!.created_at.getTime());
    }
    const access = await sql<{ count: string }>`select count(distinct object_id) from node_access where object_id = any(${ids}::uuid[])`.execute(scene.database.db);
    expect(Number(access.rows[0]!.count)).toBe(ids.length);
    await stream.next((e) => e.row?.id === ids.at(-1), 20_000, 'the last spooled node on /ws');

    const messages = scene.logs.map((l) => l.message);
    expect(messages.filter((m) => m.startsWith('intake database unreachable; spooling')).length).toBe(1);
    expect(messages.filter((m) => m.startsWith('intake spool drained')).length).toBe(1);
  }, 60_000);

  it('refuses, during an outage, a token rotated before it and an unknown token with 500 Databasefeil and Retry-After, and says it is degraded on /health/ready and /metrics', async () => {
    const oldToken = b.token;
    expect((await post('b', 1000)).status).toBe(200);
    const rotated = '5b0e6f1c-3d1e-4a8a-9f3e-0c6d2b7a9e11';
    await sql`update nodes set metadata = metadata || jsonb_build_object('token', ${rotated}::text) where id = ${b.id}`.execute(scene.database.db);
    // The change stream tells the cache: the old token is asked of the database again, which finds nothing.
    await untilStatus(oldToken, 404);
    expect((await post('b', 1001, oldToken)).status).toBe(404);
    await scene.pg.stopServer();
    try {
      for (const token of [oldToken, '00000000-0000-4000-8000-0000000000ff']) {
        const res = await post('b', 1002, token);
        expect([res.status, res.body, res.retryAfter]).toEqual([500, { error: 'Databasefeil' }, '5']);
      }
      expect((await post('a', 1003)).status).toBe(200);
      const ready = await fetch(`${scene.api.url}/health/ready`);
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'degraded', database: 'unreachable', spool: { entries: 1, oldest_age_seconds: expect.any(Number) } }]);
      const metrics = await fetch(`${scene.api.url}/metrics?format=json`, { headers: { authorization: 'Bearer metrics-token-for-the-outage-test' } });
      expect(((await metrics.json()) as { spool: unknown }).spool).toEqual({
        entries: 1,
        bytes: expect.any(Number),
        oldest_age_seconds: expect.any(Number),
        replays_done: expect.any(Number),
        degraded: true,
      });
    } finally {
      await scene.pg.startServer();
    }
    await drained();
  }, 60_000);

  it('takes a webhook\'s new signing secret at once: during a later outage a delivery signed with the old secret is refused and one signed with the new secret accepted', async () => {
    const signed = (secret: string, n: number) => {
      const payload = { title: `signert ${n}`, n };
      const signature = `sha256=${createHmac('sha256', secret).update(JSON.stringify(payload)).digest('hex')}`;
      return scene.post(a.token, payload, { 'x-github-event': 'push', 'x-hub-signature-256': signature });
    };
    const keptSecret = async () => (await scene.keptTargets(a.id)).find((kept) => !kept.target.previousToken)?.target.secret?.secret;
    // The webhook is known: the cache had it before any secret.
    expect((await post('a', 2000)).status).toBe(200);
    for (const secret of ['first-secret', 'second-secret']) {
      const set = await scene.asOwner('/intentions/set_webhook_secret', { webhook_id: a.id, scheme: 'github', secret });
      expect(set.status).toBe(200);
      // Only the secret changed (no node, no token): the spool's copy takes it from the change stream.
      for (let tries = 0; (await keptSecret()) !== secret; tries++) {
        if (tries > 200) throw new Error(`the spool still keeps ${String(await keptSecret())}, not ${secret}: ${JSON.stringify(scene.logs.slice(-30))}`);
        await pause(100);
      }
    }
    const before = Number((await sql<{ count: string }>`select count(*) from webhook_deliveries where webhook_id = ${a.id}`.execute(scene.database.db)).rows[0]!.count);
    await scene.pg.stopServer();
    let accepted: Answer;
    try {
      expect((await signed('first-secret', 2001)).status).toBe(401);
      expect((await post('a', 2002)).status).toBe(401);
      accepted = await signed('second-secret', 2003);
      expect(accepted.status).toBe(200);
    } finally {
      await scene.pg.startServer();
    }
    await drained();
    const stored = await sql<{ n: number }>`select (metadata -> 'payload' ->> 'n')::int as n from nodes where id = ${accepted.body.node_id!}`.execute(scene.database.db);
    expect(stored.rows).toEqual([{ n: 2003 }]);
    const after = Number((await sql<{ count: string }>`select count(*) from webhook_deliveries where webhook_id = ${a.id}`.execute(scene.database.db)).rows[0]!.count);
    expect(after - before).toBe(1);
  }, 90_000);

  it('accepts a previous token within its grace during an outage (marked and counted once it is back), and refuses it once its grace was ended early', async () => {
    const current = await sql<{ token: string }>`select metadata ->> 'token' as token from nodes where id = ${b.id}`.execute(scene.database.db);
    const old = current.rows[0]!.token;
    expect((await scene.post(old, { n: 3000 })).status).toBe(200);
    const rotation = await scene.asOwner('/intentions/rotate_webhook_token', { webhook_id: b.id, grace_hours: 1 });
    expect(rotation.status).toBe(200);
    const token = (rotation.body as { token: string }).token;
    const kept = async () => (await scene.keptTargets(b.id)).map((k) => (k.target.previousToken ? 'previous' : 'current')).sort();
    const until = async (want: string[]) => {
      for (let tries = 0; JSON.stringify(await kept()) !== JSON.stringify(want); tries++) {
        if (tries > 200) throw new Error(`the spool keeps ${JSON.stringify(await kept())} for the webhook, not ${JSON.stringify(want)}`);
        await pause(100);
      }
    };
    // The rotation reached the spool's copy from the change stream: the new token and the old one in its grace.
    await until(['current', 'previous']);
    await scene.pg.stopServer();
    let viaOld: Answer;
    try {
      viaOld = await scene.post(old, { n: 3001 });
      expect(viaOld.status).toBe(200);
      expect((await scene.post(token, { n: 3002 })).status).toBe(200);
    } finally {
      await scene.pg.startServer();
    }
    await drained();
    const marked = await sql<{ previous_token: boolean }>`select previous_token from webhook_deliveries where node_id = ${viaOld.body.node_id!}`.execute(scene.database.db);
    expect(marked.rows).toEqual([{ previous_token: true }]);
    const hits = await sql<{ hits: string }>`select hits from webhook_previous_tokens where webhook_id = ${b.id}`.execute(scene.database.db);
    expect(hits.rows).toEqual([{ hits: '1' }]);

    expect((await scene.asOwner('/intentions/end_webhook_token_grace', { webhook_id: b.id })).body).toEqual({ webhook_id: b.id, ended: 1 });
    await until(['current']);
    await scene.pg.stopServer();
    try {
      const refused = await scene.post(old, { n: 3003 });
      expect([refused.status, refused.body]).toEqual([500, { error: 'Databasefeil' }]);
      expect((await scene.post(token, { n: 3004 })).status).toBe(200);
    } finally {
      await scene.pg.startServer();
    }
    await drained();
  }, 110_000);

  it('answers a known token from memory while the change stream keeps it current, asks the database again once the webhook changes, and stops a token rotated away without a grace', async () => {
    // A webhook of its own: a has a signing secret by now, b a rotated token.
    const c = await createWebhook(storesOn(scene.database.db).webhookAdmin, OPERATOR, { collectionId: scene.collectionId, templateId: null, createdBy: null });
    const postC = (n: number) => scene.post(c.token, { title: `c ${n}`, n });
    expect((await postC(4000)).status).toBe(200);
    const before = await tokenLookups();
    for (let n = 1; n <= 5; n++) expect((await postC(4000 + n)).status).toBe(200);
    const served = await tokenLookups();
    expect([served.memory - before.memory, served.database - before.database]).toEqual([5, 0]);

    // Any change of the webhook's node (here its title) sends the next lookup to the database.
    await sql`update nodes set title = 'Omdøpt' where id = ${c.id}`.execute(scene.database.db);
    for (let tries = 0; (await tokenLookups()).database === served.database; tries++) {
      if (tries > 100) throw new Error('the change of the webhook did not reach the cache');
      expect((await postC(4010 + tries)).status).toBe(200);
      await pause(20);
    }
    const asked = await tokenLookups();
    expect((await postC(4200)).status).toBe(200);
    expect((await tokenLookups()).memory).toBe(asked.memory + 1);

    // Rotated without a grace: the old token answers 404 within the change stream's delay, and from then on.
    const old = c.token;
    const rotation = await scene.asOwner('/intentions/rotate_webhook_token', { webhook_id: c.id, grace_hours: 0 });
    expect(rotation.status).toBe(200);
    await untilStatus(old, 404);
    for (let n = 0; n < 3; n++) expect((await scene.post(old, { n })).status).toBe(404);
    expect((await scene.post((rotation.body as { token: string }).token, { n: 4300 })).status).toBe(200);
  }, 60_000);
});
