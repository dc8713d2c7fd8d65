import { afterAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { uuidv7 } from '@inntak/core';
import { webhookBelongsToEdge, webhookContentNode } from '@inntak/graph';
import { SpoolingIntakeStore, WebhookTargetCache, type IntakeStore, type Spool, type SpoolEntry } from '@inntak/intake';
import { isDatabaseUnavailable } from '@inntak/postgres';
import { PostgresIntakeStore } from '@inntak/postgres/intake';
import { NatsSpool, SqliteSpool } from '@inntak/spool';
import { describeWithEngine, NATS_URL } from '@inntak/test-support';
import { ctx, setupIntakeScene, webhook } from './__tests__/intake-scene.js';

// Issue 37: replay writes each spooled delivery once, whoever replays it and however often.

setupIntakeScene();
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function entry(n: number): SpoolEntry {
  const receivedAt = new Date();
  const node = webhookContentNode({ webhookId: webhook.id, title: `n ${n}`, content: '', payload: { n }, extraMetadata: {} });
  return { node, edge: webhookBelongsToEdge(node.id, ctx.collectionId, webhook.id), log: { id: uuidv7(), webhookId: webhook.id, receivedAt, deliveryId: null, event: null, bytes: 2, durationMs: 0 } };
}

function spoolingStore(dir: string, live?: IntakeStore) {
  return over(new SqliteSpool({ dir, maxBytes: 1024 * 1024 }), live);
}

function over<S extends Spool>(spool: S, live?: IntakeStore) {
  const postgres = new PostgresIntakeStore(ctx.database);
  const store = new SpoolingIntakeStore({ live: live ?? postgres, replay: postgres, spool, targets: new WebhookTargetCache(spool, ctx.logger), isUnavailable: isDatabaseUnavailable, logger: ctx.logger, replayBatch: 7, boundMs: 200 });
  return { spool, store };
}

async function drained(store: SpoolingIntakeStore): Promise<void> {
  while ((await store.snapshot()).degraded) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('replaying the spool', () => {
  it('writes each entry once when two processes replay the same spool at once and one entry was already committed', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'inntak-replay-')), 'spool');
    dirs.push(join(dir, '..'));
    const entries = Array.from({ length: 40 }, (_, n) => entry(n));
    const writer = new SqliteSpool({ dir, maxBytes: 1024 * 1024 });
    for (const e of entries) await writer.append(e);
    await writer.close();
    // The first attempt of entry 10 committed, but its answer never came back.
    await new PostgresIntakeStore(ctx.database).writeContent(entries[10]!.node, entries[10]!.edge, entries[10]!.log);

    const one = spoolingStore(dir);
    const two = spoolingStore(dir);
    await Promise.all([one.store.start(), two.store.start()]);
    await Promise.all([drained(one.store), drained(two.store)]);

    const ids = entries.map((e) => e.node.id);
    const { rows } = await sql<{ nodes: string; deliveries: string; access: string }>`
      select (select count(*) from nodes where id = any(${ids}::uuid[])) as nodes,
             (select count(*) from webhook_deliveries where node_id = any(${ids}::uuid[])) as deliveries,
             (select count(distinct object_id) from node_access where object_id = any(${ids}::uuid[])) as access`.execute(ctx.database.db);
    expect(rows[0]).toEqual({ nodes: '40', deliveries: '40', access: '40' });
    expect((await one.spool.stats()).entries).toBe(0);
    await Promise.all([one.store.stop(), two.store.stop()]);
    await Promise.all([one.spool.close(), two.spool.close()]);
  });

  it('writes a delivery whose webhook was deleted during the outage nowhere, logs it, and goes on with the rest', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'inntak-replay-')), 'spool');
    dirs.push(join(dir, '..'));
    const gone = await ctx.addWebhook();
    const orphan = entry(1);
    orphan.node.created_by = gone.id;
    orphan.node.metadata = { ...orphan.node.metadata, webhook_id: gone.id };
    orphan.log.webhookId = gone.id;
    orphan.edge = webhookBelongsToEdge(orphan.node.id, ctx.collectionId, gone.id);
    await sql`delete from nodes where id = ${gone.id}`.execute(ctx.database.db);
    const kept = entry(2);
    const { spool, store } = spoolingStore(dir);
    await spool.append(orphan);
    await spool.append(kept);
    await store.start();
    await drained(store);
    const { rows } = await sql<{ id: string }>`select id from nodes where id = any(${[orphan.node.id, kept.node.id]}::uuid[])`.execute(ctx.database.db);
    expect(rows.map((r) => r.id)).toEqual([kept.node.id]);
    expect(ctx.logs).toContainEqual(expect.objectContaining({ level: 'error', message: 'spooled delivery could not be written; dropped', node_id: orphan.node.id }));
    await store.stop();
    await spool.close();
  });

  it('spools a write the database has not done within the bound, answers it, and writes it once later', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'inntak-replay-')), 'spool');
    dirs.push(join(dir, '..'));
    const postgres = new PostgresIntakeStore(ctx.database);
    // A database that takes the first write but never answers it (the failure is injected through the port).
    let hung = false;
    const slow: IntakeStore = {
      findWebhookByToken: (token) => postgres.findWebhookByToken(token),
      recordFailedDelivery: (d) => postgres.recordFailedDelivery(d),
      writeContent: (node, edge, log) => {
        if (hung) return postgres.writeContent(node, edge, log);
        hung = true;
        void postgres.writeContent(node, edge, log);
        return new Promise(() => {});
      },
    };
    const { spool, store } = spoolingStore(dir, slow);
    await store.start();
    const e = entry(3);
    expect(await store.writeContent(e.node, e.edge, e.log)).toEqual({ propagationError: null, duplicateOf: null });
    await drained(store);
    const { rows } = await sql<{ count: string }>`select count(*) from nodes where id = ${e.node.id}`.execute(ctx.database.db);
    expect(rows[0]!.count).toBe('1');
    await store.stop();
    await spool.close();
  });
});

let natsSpools: NatsSpool[] = [];
// A NATS server is a service npm does not bring (README, "Optional engines"); .ci/run starts one.
describeWithEngine('nats', describe, 'replaying a shared NATS spool', () => {
  afterAll(async () => {
    await natsSpools[0]?.destroy();
    for (const s of natsSpools.slice(1)) await s.close();
  });

  it('lets another API process replay what one accepted, each once', async () => {
    const stream = `INNTAK_REPLAY_TEST_${process.pid}_${Date.now()}`;
    const accepting = await NatsSpool.open({ url: NATS_URL, maxBytes: 1024 * 1024, stream });
    const replaying = await NatsSpool.open({ url: NATS_URL, maxBytes: 1024 * 1024, stream });
    natsSpools = [accepting, replaying];
    const entries = Array.from({ length: 15 }, (_, n) => entry(100 + n));
    await Promise.all(entries.map((e) => accepting.append(e)));
    const { store } = over(replaying);
    await store.start();
    await drained(store);
    const ids = entries.map((e) => e.node.id);
    const { rows } = await sql<{ count: string }>`select count(*) from nodes where id = any(${ids}::uuid[])`.execute(ctx.database.db);
    expect(rows[0]!.count).toBe('15');
    expect((await accepting.stats()).entries).toBe(0);
    await store.stop();
  });
});
