import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import { OWNER_SUBJECT } from './__tests__/helpers.js';
import { app, ctx, owner, post, setupOwnerScene } from './__tests__/owner-scene.js';
import { connectStream, startApiInstance } from './__tests__/realtime-helpers.js';

// POST /intentions/rerender against real PostgreSQL (issue 17, Re-render).

const FIXTURES = new URL('../../../packages/templates/fixtures/', import.meta.url);
const GITHUB_PUSH = readFileSync(new URL('forge-push/github-push-one_commit.json', FIXTURES), 'utf8');

setupOwnerScene();

async function pushTo(token: string) {
  const res = await request(app).post(`/api/webhook/${token}`).set({ 'Content-Type': 'application/json', 'X-GitHub-Event': 'push' }).send(GITHUB_PUSH);
  expect(res.status).toBe(200);
  return res.body.node_id as string;
}

const nodeRow = (id: string) => ctx.database.db.selectFrom('nodes').select(['title', 'content', 'metadata']).where('id', '=', id).executeTakeFirstOrThrow();

describe('POST /intentions/rerender', () => {
  it('after set_template, renders a push stored generically as a push: title, content and template metadata with its template_version, as a fresh push gets', async () => {
    const webhook = await ctx.addWebhook(null);
    const nodeId = await pushTo(webhook.token);
    const before = await nodeRow(nodeId);
    expect(before.metadata.template).toBeUndefined();
    expect(before.metadata.event_headers).toEqual({ 'x-github-event': 'push' });

    const set = await post('/intentions/set_template', owner, { webhook_id: webhook.id, template_id: 'forge-push' });
    expect(set.status).toBe(200);
    const res = await post('/intentions/rerender', owner, { node_id: nodeId });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ node_id: nodeId, template_id: 'forge-push', template_version: expect.any(Number) });

    const after = await nodeRow(nodeId);
    expect(after.title).toBe(res.body.title);
    expect(after.title).not.toBe(before.title);
    expect(after.title).toMatch(/push|commit/i);
    expect(after.metadata).toMatchObject({ source: 'webhook', webhook_id: webhook.id, template: 'forge-push', template_version: res.body.template_version, sender: 'github', event: 'push' });
    expect(after.metadata.payload).toEqual(before.metadata.payload);
    // The same title as a push delivered to a forge-push webhook today.
    const fresh = await nodeRow(await pushTo((await ctx.addWebhook('forge-push')).token));
    expect([fresh.title, fresh.content]).toEqual([after.title, after.content]);
    const { payload: _p, webhook_id: _w, ...freshKeys } = fresh.metadata;
    const { payload: _q, webhook_id: _x, ...afterKeys } = after.metadata;
    expect(afterKeys).toEqual(freshKeys);
  });

  it('back to generic extraction removes the template’s keys and keeps the others', async () => {
    const webhook = await ctx.addWebhook('forge-push');
    const nodeId = await pushTo(webhook.token);
    await ctx.database.db
      .updateTable('nodes')
      .set({ metadata: JSON.stringify({ ...(await nodeRow(nodeId)).metadata, note: 'kept by someone else' }) })
      .where('id', '=', nodeId)
      .execute();
    await post('/intentions/set_template', owner, { webhook_id: webhook.id, template_id: null });
    const res = await post('/intentions/rerender', owner, { node_id: nodeId });
    expect(res.body).toMatchObject({ template_id: null, template_version: null });
    const after = await nodeRow(nodeId);
    expect(after.metadata.template).toBeUndefined();
    expect(after.metadata.template_version).toBeUndefined();
    expect(after.metadata).toMatchObject({ source: 'webhook', note: 'kept by someone else', event_headers: { 'x-github-event': 'push' } });
  });

  it('refuses a node that did not come from a webhook (400), a missing webhook (409); a member gets 403, a stranger 404', async () => {
    const plain = await post('/intentions/create_node', owner, { node_kind: 'content', title: 'skrevet for hånd', collection_id: ctx.collectionId });
    expect(plain.status).toBe(201);
    const notWebhook = await post('/intentions/rerender', owner, { node_id: plain.body.id });
    expect(notWebhook.status).toBe(400);
    expect(notWebhook.body).toEqual({ error: 'Ugyldig forespørsel: node_id: noden kom ikke fra en webhook' });

    const webhook = await ctx.addWebhook(null);
    const nodeId = await pushTo(webhook.token);
    const member = await ctx.addPerson('rerender-member');
    await post('/intentions/grant_access', owner, { subject_id: member.id, object_id: ctx.collectionId, access: 'member' });
    expect((await post('/intentions/rerender', member.authorization, { node_id: nodeId })).status).toBe(403);
    const stranger = await ctx.addPerson('rerender-stranger');
    expect((await post('/intentions/rerender', stranger.authorization, { node_id: nodeId })).status).toBe(404);

    await post('/intentions/delete_webhook', owner, { webhook_id: webhook.id });
    const gone = await post('/intentions/rerender', owner, { node_id: nodeId });
    expect(gone.status).toBe(409);
    expect(gone.body).toEqual({ error: 'Konflikt: webhooken som leverte noden finnes ikke lenger' });
  });

  it('a stranger naming a webhook they cannot see in their own node answers 404, reveals no template and renders nothing (issue 22, finding 15)', async () => {
    const webhook = await ctx.addWebhook('forge-push');
    const stranger = await ctx.addPerson('rerender-forger');
    const own = await post('/intentions/create_collection', stranger.authorization, { title: 'Min egen' });
    expect(own.status).toBe(201);
    const payload = JSON.parse(GITHUB_PUSH);
    const forge = async (webhookId: string) => {
      const node = await post('/intentions/create_node', stranger.authorization, {
        node_kind: 'content',
        title: 'forfalsket',
        collection_id: own.body.id,
        metadata: { source: 'webhook', webhook_id: webhookId, payload, event_headers: { 'x-github-event': 'push' } },
      });
      expect(node.status).toBe(201);
      return node.body.id as string;
    };
    const forged = await forge(webhook.id);
    const res = await post('/intentions/rerender', stranger.authorization, { node_id: forged });
    expect(res.status).toBe(404);
    expect(JSON.stringify(res.body)).not.toContain('forge-push');
    expect((await nodeRow(forged)).title).toBe('forfalsket');
    // A webhook id that exists nowhere answers the same: no way to tell the two apart.
    const nowhere = await post('/intentions/rerender', stranger.authorization, { node_id: await forge('0193a5b2-7c1d-7e4f-9a10-2b3c4d5e6f70') });
    expect([nowhere.status, nowhere.body]).toEqual([res.status, res.body]);
    // The owner can see the webhook, but their own hand-made node naming it did not come from it.
    const byOwner = await post('/intentions/create_node', owner, {
      node_kind: 'content',
      title: 'for hånd',
      collection_id: ctx.collectionId,
      metadata: { source: 'webhook', webhook_id: webhook.id, payload },
    });
    const handMade = await post('/intentions/rerender', owner, { node_id: byOwner.body.id });
    expect(handMade.status).toBe(400);
    expect(handMade.body).toEqual({ error: 'Ugyldig forespørsel: node_id: noden kom ikke fra en webhook' });
  });

  it('streams the re-rendered node to /ws clients who may see it, with its new title', async () => {
    const server = await startApiInstance(ctx);
    const client = await connectStream(server.url, await ctx.tokenFor(OWNER_SUBJECT));
    try {
      const webhook = await ctx.addWebhook(null);
      const nodeId = await pushTo(webhook.token);
      await post('/intentions/set_template', owner, { webhook_id: webhook.id, template_id: 'forge-push' });
      const res = await post('/intentions/rerender', owner, { node_id: nodeId });
      const updated = await client.next((e) => e.type === 'node.updated' && e.row.id === nodeId && e.row.title === res.body.title);
      expect(updated.row).toMatchObject({ id: nodeId, title: res.body.title });
    } finally {
      client.close();
      await server.close();
    }
  });
});
