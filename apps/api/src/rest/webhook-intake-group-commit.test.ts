import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sql } from 'kysely';
import { GroupCommit, type IntakeStore } from '@inntak/intake';
import { PostgresIntakeStore } from '@inntak/postgres/intake';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';

let ctx: TestContext;
let webhook: { id: string; token: string; edgeId: string };

beforeAll(async () => {
  ctx = await setupTestContext();
  webhook = await ctx.addWebhook();
  // A delivery whose content carries this word has its node refused by the database.
  await sql.raw(`create function refuse_marked() returns trigger language plpgsql as $$
    begin raise exception 'refused for the test'; end $$`).execute(ctx.database.db);
  await sql.raw(`create trigger refuse_marked before insert on nodes for each row
    when (new.metadata::text like '%refuse-me%') execute function refuse_marked()`).execute(ctx.database.db);
});
afterAll(() => ctx.close());

/**
 * The API with intake's writes one at a time (one connection's worth), and the delivery log
 * locked until `release`: the first write waits in the database, so every later one waits in
 * the group commit and they go together once the lock is released.
 */
async function heldApp() {
  const group = new GroupCommit(new PostgresIntakeStore(ctx.database), { maxInFlight: 1 });
  // Counts the writes handed to the group commit: with the first in flight, each later one is
  // queued as it is handed over, so the test awaits that instead of sleeping and hoping.
  let handed = 0;
  const counted: IntakeStore = {
    findWebhookByToken: (token) => group.findWebhookByToken(token),
    writeContent: (node, edge, log) => {
      handed += 1;
      return group.writeContent(node, edge, log);
    },
    recordFailedDelivery: (delivery) => group.recordFailedDelivery(delivery),
  };
  const app = ctx.app({ intakeStore: counted });
  const locker = await ctx.database.pool.connect();
  await locker.query('begin');
  await locker.query('lock table webhook_deliveries in share mode');
  return {
    app,
    async handedOver(count: number): Promise<void> {
      for (const end = Date.now() + 15_000; handed < count; ) {
        if (Date.now() > end) throw new Error(`${handed} of ${count} writes reached the group commit`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    async release() {
      await locker.query('commit');
      locker.release();
    },
  };
}

function post(app: ReturnType<typeof ctx.app>, body: object) {
  return request(app).post(`/api/webhook/${webhook.token}`).set('Content-Type', 'application/json').send(body);
}

async function waitForLock(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await sql<{ n: string }>`select count(*) as n from pg_locks where not granted and relation = 'webhook_deliveries'::regclass`.execute(ctx.database.db);
    if (Number(rows[0]!.n) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the first write never waited for the lock');
}

/**
 * The transactions that wrote these nodes: rows of one transaction share their xmin (the
 * delivery log row's: the node's own is its subtransaction's, inntak_intake_write).
 */
async function transactionsOf(ids: string[]): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(distinct xmin::text) as n from webhook_deliveries where node_id = any(${ids}::uuid[])`.execute(ctx.database.db);
  return Number(rows[0]!.n);
}

describe('intake by group commit', () => {
  it('deliveries that wait together are written in one transaction, each answered 200 with its own node, edge and access', async () => {
    const held = await heldApp();
    const first = post(held.app, { n: 0 }).then((res) => res);
    await waitForLock();
    const rest = [1, 2, 3, 4, 5].map((n) => post(held.app, { n }).then((res) => res));
    await held.handedOver(6);
    await held.release();
    const answers = await Promise.all([first, ...rest]);
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const ids = answers.map((res) => res.body.node_id as string);
    expect(new Set(ids).size).toBe(6);
    // The first alone, the five that waited behind it together.
    expect(await transactionsOf(ids)).toBe(2);
    const { rows } = await sql<{ id: string; edges: string; access: string }>`
      select n.id, (select count(*) from edges e where e.source_id = n.id and e.edge_type = 'belongs_to') as edges,
             (select count(*) from node_access a where a.object_id = n.id) as access
        from nodes n where n.id = any(${ids}::uuid[])`.execute(ctx.database.db);
    expect(rows.every((r) => r.edges === '1' && Number(r.access) >= 1)).toBe(true);
  });

  it('a bad delivery in a batch fails alone, answered as it would be alone; the others of its batch are written', async () => {
    const alone = await post(ctx.app(), { text: 'refuse-me' });
    expect(alone.status).not.toBe(200);
    const held = await heldApp();
    const first = post(held.app, { n: 10 }).then((res) => res);
    await waitForLock();
    const batch = [{ n: 11 }, { text: 'refuse-me', n: 12 }, { n: 13 }, { n: 14 }].map((body) => post(held.app, body).then((res) => res));
    await held.handedOver(5);
    await held.release();
    const answers = await Promise.all([first, ...batch]);
    expect(answers.map((res) => res.status)).toEqual([200, 200, alone.status, 200, 200]);
    expect(answers[2]!.body).toEqual(alone.body);
    const ids = answers.filter((res) => res.status === 200).map((res) => res.body.node_id as string);
    const { rows } = await sql<{ n: string }>`select count(*) as n from nodes where id = any(${ids}::uuid[])`.execute(ctx.database.db);
    expect(Number(rows[0]!.n)).toBe(4);
    const { rows: refused } = await sql<{ n: string }>`select count(*) as n from nodes where metadata::text like '%refuse-me%'`.execute(ctx.database.db);
    expect(refused[0]!.n).toBe('0');
  });
});
