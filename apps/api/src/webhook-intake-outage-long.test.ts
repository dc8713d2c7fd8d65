import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { describeWithEngine } from '@inntak/test-support';
import { pause, startOutageScene, type Answer, type OutageScene } from './__tests__/outage-scene.js';

// Issue 37: a managed PostgreSQL fails over or restarts for maintenance in 20–60 s. A real
// PostgreSQL is stopped for 30 s under a steady trickle of deliveries to two known webhooks:
// every one is answered 200 while it is down, and all are stored, once each and in their order,
// when it is back. Each webhook's sender waits for an answer before it sends the next, so the
// order it sent in is the order the service received in.

describeWithEngine('postgres', describe, 'intake through a 30 s PostgreSQL outage', () => {
  let scene: OutageScene;

  beforeAll(async () => {
    scene = await startOutageScene();
  }, 90_000);

  afterAll(async () => {
    await scene?.close();
  });

  it('answers a steady trickle 200 through a 30 s outage and stores every delivery once, in order, when the database is back', async () => {
    const sent: Array<Answer & { webhook: string; n: number; during: boolean }> = [];
    let down = false;
    let stop = false;
    // One sender per webhook, about 5 deliveries a second each.
    const sender = async (webhook: { id: string; token: string }) => {
      for (let n = 0; !stop; n++) {
        const during = down;
        const answer = await scene.post(webhook.token, { title: `levering ${n}`, n });
        sent.push({ ...answer, webhook: webhook.id, n, during });
        await pause(200);
      }
    };
    // Both webhooks are known (looked up once while the database answered).
    expect((await scene.post(scene.a.token, { n: -1 })).status).toBe(200);
    expect((await scene.post(scene.b.token, { n: -1 })).status).toBe(200);
    const senders = Promise.all([sender(scene.a), sender(scene.b)]);
    try {
      await pause(1000);
      await scene.pg.stopServer();
      down = true;
      await pause(30_000);
      down = false;
      await scene.pg.startServer();
      await pause(1000);
    } finally {
      stop = true;
      await senders;
    }

    expect(sent.filter((s) => s.status !== 200)).toEqual([]);
    // A trickle, not a handful: the senders kept going while it was down (how many depends on the machine).
    expect(sent.filter((s) => s.during).length).toBeGreaterThan(20);
    await scene.drained();

    const ids = sent.map((s) => s.body.node_id!);
    expect(new Set(ids).size).toBe(ids.length);
    const stored = await sql<{ id: string; created_at: Date }>`select id, created_at from nodes where id = any(${ids}::uuid[])`.execute(scene.database.db);
    expect(stored.rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    const logged = await sql<{ count: string }>`select count(*) from webhook_deliveries where node_id = any(${ids}::uuid[]) and status = 200`.execute(scene.database.db);
    expect(Number(logged.rows[0]!.count)).toBe(ids.length);
    const createdAt = new Map(stored.rows.map((r) => [r.id, r.created_at.getTime()]));
    for (const webhook of [scene.a.id, scene.b.id]) {
      // In the order each sender sent: what arrived later was not written earlier.
      const times = sent.filter((s) => s.webhook === webhook).map((s) => createdAt.get(s.body.node_id!)!);
      for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThanOrEqual(times[i - 1]!);
    }
    const messages = scene.logs.map((l) => l.message);
    expect(messages.filter((m) => m.startsWith('intake database unreachable; spooling')).length).toBe(1);
    expect(messages.filter((m) => m.startsWith('intake spool drained')).length).toBe(1);
  }, 115_000);
});
