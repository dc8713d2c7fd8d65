import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { uuidv7 } from '@inntak/core';
import type { Visibility } from '@inntak/graph';
import type { ApiServer } from '../api-server.js';
import { OWNER_SUBJECT, setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { connectStream, startApiInstance, type StreamClient } from '../__tests__/realtime-helpers.js';
import { createPerson, OPERATOR } from '@inntak/access';
import { createWebhook } from '@inntak/intake';
import { storesOn } from '@inntak/postgres/testing';

let ctx: TestContext;
let api: ApiServer;
let readerId: string;
let owner: StreamClient, reader: StreamClient, stranger: StreamClient;
const clients: StreamClient[] = [];

beforeAll(async () => {
  ctx = await setupTestContext();
  api = await startApiInstance(ctx);
  readerId = (await createPerson(storesOn(ctx.database.db).graph, { subject: 'reader-subject', name: 'Leser' })).id;
  await createPerson(storesOn(ctx.database.db).graph, { subject: 'stranger-subject', name: 'Fremmed' });
  // The reader reads the collection (and so everything that belongs to it).
  await ctx.database.db.insertInto('node_access').values({ subject_id: readerId, object_id: ctx.collectionId, access: 'reader', via_edge: null }).execute();
  owner = await connect(OWNER_SUBJECT);
  reader = await connect('reader-subject');
  stranger = await connect('stranger-subject');
});
afterAll(async () => {
  for (const client of clients) client.close();
  await api.close();
  await ctx.close();
});

async function connect(subject: string): Promise<StreamClient> {
  const client = await connectStream(api.url, await ctx.tokenFor(subject));
  clients.push(client);
  return client;
}

async function addNode(visibility: Visibility, fields: { content?: string; createdBy?: string } = {}): Promise<string> {
  const id = uuidv7();
  await ctx.database.db
    .insertInto('nodes')
    .values({ id, node_kind: 'content', title: `t-${visibility}`, content: fields.content ?? 'innhold', visibility, metadata: JSON.stringify({ k: 'v' }), created_by: fields.createdBy ?? ctx.ownerId })
    .execute();
  return id;
}

/**
 * Events reach each client in the order they were sent: once a later change visible to all has
 * arrived, an earlier one that did not arrive never will.
 */
async function barrier(...targets: StreamClient[]): Promise<void> {
  const id = await addNode('open');
  await Promise.all(targets.map((t) => t.next((e) => e.type === 'node.created' && e.row.id === id, 30_000, `barrier ${id}`)));
}

describe('/ws handshake', () => {
  it('refuses a connection without a token with Mangler Authorization-header', async () => {
    await expect(connectStream(api.url, undefined)).rejects.toThrow('Mangler Authorization-header');
  });

  it('refuses an invalid token with Ugyldig token', async () => {
    await expect(connectStream(api.url, 'not-a-jwt')).rejects.toThrow('Ugyldig token');
  });

  it('refuses a valid token of an unknown subject with Ukjent brukeridentitet', async () => {
    await expect(connectStream(api.url, await ctx.tokenFor('nobody'))).rejects.toThrow('Ukjent brukeridentitet');
  });

  it('ends the connection when its token expires: session_expired, then disconnect', async () => {
    const client = await connectStream(api.url, await ctx.issuer.token(OWNER_SUBJECT, { expiresIn: '2s' }));
    clients.push(client);
    const disconnected = new Promise<string>((resolve) => client.socket.once('disconnect', resolve));
    await client.next((e) => e.type === 'session_expired', 5000, 'session_expired');
    expect(await disconnected).toBe('io server disconnect');
  });

  it('accepts the JWT in the Authorization header as well as in auth.token', async () => {
    const client = await connectStream(api.url, await ctx.tokenFor(OWNER_SUBJECT), { viaHeader: true });
    clients.push(client);
    expect(client.of('initial_sync')).toHaveLength(1);
  });
});

describe('initial_sync', () => {
  it('gives the client its own node, the collections it can see with their latest nodes, and the mixer state', async () => {
    const webhook = await createWebhook(storesOn(ctx.database.db).webhookAdmin, OPERATOR, { collectionId: ctx.collectionId, createdBy: ctx.ownerId });
    const client = await connect(OWNER_SUBJECT);
    const sync = client.of('initial_sync')[0]!;
    expect((sync.person as { id: string }).id).toBe(ctx.ownerId);
    const collections = sync.collections as Array<{ collection: { id: string }; nodes: Array<{ id: string; metadata: Record<string, unknown> }> }>;
    expect(collections.map((c) => c.collection.id)).toEqual([ctx.collectionId]);
    expect(collections[0]!.nodes.map((n) => n.id)).toContain(webhook.id);
    expect(sync.mixer).toEqual([]);

    const strangerSync = stranger.of('initial_sync')[0]!;
    expect(strangerSync.collections).toEqual([]);
  });
});

describe('change stream', () => {
  it('webhook intake adds no callback: its node and edge appear in the stream of those who may see them', async () => {
    const webhook = await ctx.addWebhook();
    const res = await request(ctx.app()).post(`/api/webhook/${webhook.token}`).send({ title: 'Bygg grønt', content: 'ok' });
    expect(res.status).toBe(200);
    const { node_id, edge_id } = res.body as { node_id: string; edge_id: string };

    for (const client of [owner, reader]) {
      const created = await client.next((e) => e.type === 'node.created' && e.row.id === node_id);
      expect(created.row).toMatchObject({ id: node_id, node_kind: 'content', title: 'Bygg grønt', visibility: 'hidden', created_by: webhook.id });
      expect(typeof created.at).toBe('string');
      const edge = await client.next((e) => e.type === 'edge.created' && e.row.id === edge_id);
      expect(edge.row).toMatchObject({ source_id: node_id, target_id: ctx.collectionId, edge_type: 'belongs_to', system: true });
    }
    await barrier(stranger);
    expect(stranger.events.filter((e) => e.row?.id === node_id || e.row?.id === edge_id || e.row?.object_id === node_id)).toEqual([]);
  });

  it('a hidden node never reaches a reader without access, in no event', async () => {
    const id = await addNode('hidden');
    await ctx.database.db.updateTable('nodes').set({ title: 'endret' }).where('id', '=', id).execute();
    await ctx.database.db.deleteFrom('nodes').where('id', '=', id).execute();
    await owner.next((e) => e.type === 'node.deleted' && e.row.id === id);
    await barrier(stranger, reader);
    for (const client of [stranger, reader]) expect(client.events.filter((e) => JSON.stringify(e).includes(id))).toEqual([]);
  });

  it('two users with different access see different events: full row to one, discoverable summary to the other', async () => {
    const id = await addNode('discoverable', { content: 'hemmelig' });
    const full = await owner.next((e) => e.type === 'node.created' && e.row.id === id);
    const summary = await stranger.next((e) => e.type === 'node.created' && e.row.id === id);
    expect(full.row).toMatchObject({ content: 'hemmelig', metadata: { k: 'v' } });
    expect(summary.row).toMatchObject({ id, title: 't-discoverable', content: null, metadata: {} });
  });

  it("a webhook's token reaches its owner but not a reader of its collection", async () => {
    const webhook = await createWebhook(storesOn(ctx.database.db).webhookAdmin, OPERATOR, { collectionId: ctx.collectionId, createdBy: ctx.ownerId });
    const own = await owner.next((e) => e.type === 'node.created' && e.row.id === webhook.id);
    const read = await reader.next((e) => e.type === 'node.created' && e.row.id === webhook.id);
    expect(own.row.metadata).toEqual({ token: webhook.token });
    expect(read.row.metadata).toEqual({});
    await barrier(stranger);
    expect(stranger.of('node.created', webhook.id)).toEqual([]);
  });

  it('an ordinary edge reaches those who may see both endpoints; a system edge those with access to one who see the other', async () => {
    const open = await addNode('open');
    const open2 = await addNode('readable');
    const hidden = await addNode('hidden');
    const plain = uuidv7();
    const intoHidden = uuidv7();
    const system = uuidv7();
    await ctx.database.db
      .insertInto('edges')
      .values([
        { id: plain, source_id: open2, target_id: open, edge_type: 'observes', metadata: '{}', system: false, created_by: ctx.ownerId },
        { id: intoHidden, source_id: hidden, target_id: open, edge_type: 'observes', metadata: '{}', system: false, created_by: ctx.ownerId },
        { id: system, source_id: hidden, target_id: open, edge_type: 'belongs_to', metadata: '{}', system: true, created_by: ctx.ownerId },
      ])
      .execute();
    await stranger.next((e) => e.type === 'edge.created' && e.row.id === plain);
    await owner.next((e) => e.type === 'edge.created' && e.row.id === intoHidden);
    await owner.next((e) => e.type === 'edge.created' && e.row.id === system);
    await barrier(stranger);
    expect(stranger.of('edge.created', system)).toEqual([]);
    expect(stranger.of('edge.created', intoHidden)).toEqual([]);
  });

  it('a deleted node and the edges that go with it reach those who could see them', async () => {
    const id = await addNode('hidden');
    // The owner's only access to the edge is through the node being deleted.
    const other = await addNode('readable', { createdBy: readerId });
    const edgeId = uuidv7();
    await ctx.database.db
      .insertInto('edges')
      .values({ id: edgeId, source_id: id, target_id: other, edge_type: 'observes', metadata: '{}', system: true, created_by: null })
      .execute();
    await ctx.database.db.deleteFrom('nodes').where('id', '=', id).execute();
    const deleted = await owner.next((e) => e.type === 'node.deleted' && e.row.id === id);
    expect(deleted.row).toMatchObject({ id, content: 'innhold', visibility: 'hidden' });
    await owner.next((e) => e.type === 'edge.deleted' && e.row.id === edgeId);
    await barrier(stranger, reader);
    expect(stranger.of('edge.deleted', edgeId)).toEqual([]);
    // The reader has access to the other end but could never see the hidden one.
    expect(reader.of('edge.deleted', edgeId)).toEqual([]);
  });
});

describe('access changes take effect live', () => {
  it('a client that gains access receives the node; after losing it, no further events about it', async () => {
    const strangerId = (stranger.of('initial_sync')[0]!.person as { id: string }).id;
    const id = await addNode('hidden', { content: 'før' });
    await ctx.database.db.insertInto('node_access').values({ subject_id: ctx.ownerId, object_id: id, access: 'owner', via_edge: null }).execute();

    await ctx.database.db.insertInto('node_access').values({ subject_id: strangerId, object_id: id, access: 'reader', via_edge: null }).execute();
    const granted = await stranger.next((e) => e.type === 'access.created' && e.row.object_id === id);
    expect(granted.row).toMatchObject({ subject_id: strangerId, access: 'reader' });
    const visible = await stranger.next((e) => e.type === 'node.visible' && e.row.id === id);
    expect(visible.row).toMatchObject({ content: 'før' });
    // The object's owner sees who was given access.
    await owner.next((e) => e.type === 'access.created' && e.row.object_id === id && e.row.subject_id === strangerId);

    await ctx.database.db.updateTable('nodes').set({ content: 'under' }).where('id', '=', id).execute();
    const updated = await stranger.next((e) => e.type === 'node.updated' && e.row.id === id);
    expect(updated.row.content).toBe('under');

    await ctx.database.db.deleteFrom('node_access').where('subject_id', '=', strangerId).where('object_id', '=', id).execute();
    await stranger.next((e) => e.type === 'access.deleted' && e.row.object_id === id);
    await ctx.database.db.updateTable('nodes').set({ content: 'etter' }).where('id', '=', id).execute();
    await owner.next((e) => e.type === 'node.updated' && e.row.id === id && e.row.content === 'etter');
    await barrier(stranger);
    expect(stranger.events.filter((e) => e.row?.id === id && e.row?.content === 'etter')).toEqual([]);
    expect(stranger.of('node.updated', id)).toHaveLength(1);
  });
});
