import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Socket as NetSocket } from 'node:net';
import request from 'supertest';
import pg from 'pg';
import { uuidv7 } from '@inntak/core';
import { LISTENER_APPLICATION_NAME } from '@inntak/postgres/realtime';
import type { ApiServer } from '../api-server.js';
import { OWNER_SUBJECT, setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { connectStream, startApiInstance, type StreamClient } from '../__tests__/realtime-helpers.js';

let ctx: TestContext;
let api: ApiServer;
const instances: ApiServer[] = [];
const clients: StreamClient[] = [];

beforeAll(async () => {
  ctx = await setupTestContext();
  api = await start();
});
afterAll(async () => {
  for (const client of clients) client.close();
  for (const instance of instances) await instance.close();
  await ctx.close();
});

async function start(maxQueue = 1000): Promise<ApiServer> {
  const instance = await startApiInstance(ctx, { maxQueue });
  instances.push(instance);
  return instance;
}

async function connect(instance: ApiServer): Promise<StreamClient> {
  const client = await connectStream(instance.url, await ctx.tokenFor(OWNER_SUBJECT));
  clients.push(client);
  return client;
}

async function addOpenNode(content = 'x'): Promise<string> {
  const id = uuidv7();
  await ctx.database.db
    .insertInto('nodes')
    .values({ id, node_kind: 'content', title: 'åpen', content, visibility: 'open', metadata: '{}', created_by: ctx.ownerId })
    .execute();
  return id;
}

describe('rows larger than a notification', () => {
  it('a 100 KB webhook payload arrives whole, on creation and on deletion', async () => {
    const client = await connect(api);
    const webhook = await ctx.addWebhook();
    const payload = { title: 'stor', content: 'æ'.repeat(60_000), items: Array.from({ length: 500 }, (_, i) => ({ i, text: 'ø'.repeat(40) })) };
    expect(Buffer.byteLength(JSON.stringify(payload))).toBeGreaterThan(100 * 1024);
    const res = await request(ctx.app()).post(`/api/webhook/${webhook.token}`).send(payload);
    const nodeId = (res.body as { node_id: string }).node_id;

    const created = await client.next((e) => e.type === 'node.created' && e.row.id === nodeId);
    expect((created.row.metadata as { payload: unknown }).payload).toEqual(payload);
    expect(created.row.content).toBe(payload.content);

    await ctx.database.db.deleteFrom('nodes').where('id', '=', nodeId).execute();
    const deleted = await client.next((e) => e.type === 'node.deleted' && e.row.id === nodeId);
    expect((deleted.row.metadata as { payload: unknown }).payload).toEqual(payload);
  });
});

describe('the LISTEN connection', () => {
  it('killed by pg_terminate_backend: clients get resync, and later events still flow', async () => {
    const client = await connect(api);
    const admin = new pg.Client({ connectionString: ctx.testDb.url });
    await admin.connect();
    try {
      const killed = await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1 and datname = current_database()', [
        LISTENER_APPLICATION_NAME,
      ]);
      expect(killed.rowCount).toBeGreaterThan(0);
    } finally {
      await admin.end();
    }
    const resync = await client.next((e) => e.type === 'resync');
    expect(resync.reason).toBe('listener_reconnected');
    const id = await addOpenNode();
    await client.next((e) => e.type === 'node.created' && e.row.id === id);
  });
});

describe('several API instances', () => {
  it('each listens on its own: clients of both instances receive the change', async () => {
    const second = await start();
    const [a, b] = await Promise.all([connect(api), connect(second)]);
    const id = await addOpenNode();
    await Promise.all([a, b].map((c) => c.next((e) => e.type === 'node.created' && e.row.id === id)));
  });
});

describe('backpressure', () => {
  it('a stalled client overflows its bounded queue and is told to resync; the others are not slowed down', async () => {
    const instance = await start(4);
    const healthy = await connect(instance);
    const stalled = await connect(instance);
    const overflowed = new Promise<void>((resolve) => instance.hub.onOverflow(() => resolve()));
    let overflow = false;
    void overflowed.then(() => (overflow = true));

    // Stop reading the stalled client's TCP socket: the server's kernel and socket buffers fill,
    // then its outgoing queue.
    const tcp = (stalled.socket.io.engine.transport as unknown as { ws: { _socket: NetSocket } }).ws._socket;
    tcp.pause();

    const id = await addOpenNode();
    const big = 'z'.repeat(512 * 1024);
    let updates = 0;
    while (!overflow && updates < 200) {
      updates += 1;
      await ctx.database.db.updateTable('nodes').set({ content: `${updates}:${big}` }).where('id', '=', id).execute();
      await healthy.next((e) => e.type === 'node.updated' && e.row.id === id && String(e.row.content).startsWith(`${updates}:`), 5000, `update ${updates}`);
    }
    expect(overflow).toBe(true);
    // The healthy client received every update, each in time, and no resync.
    expect(healthy.of('node.updated', id)).toHaveLength(updates);
    expect(healthy.of('resync')).toEqual([]);

    tcp.resume();
    const resync = await stalled.next((e) => e.type === 'resync', 10_000);
    expect(resync.reason).toBe('overflow');
    // After the resync the client gets events again.
    const after = await addOpenNode();
    await stalled.next((e) => e.type === 'node.created' && e.row.id === after, 10_000);
    expect(stalled.of('node.updated', id).length).toBeLessThan(updates);
  });
});
