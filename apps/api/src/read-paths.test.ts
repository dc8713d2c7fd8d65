import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { uuidv7 } from '@inntak/core';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';
import { logIn, studioApp, type Browser } from './__tests__/studio-scene.js';

/**
 * The read rules hold on every read path: each GET route in /openapi.json (so routes added
 * later are covered too) is called by a stranger with every hidden id put into its path, and
 * nothing hidden may come back.
 */
let ctx: TestContext;
let app: Express;
let owner: string;
let stranger: { id: string; authorization: string };
/** The stranger logged in to the console (/studio pages are read with its session cookie). */
let strangerStudio: Browser;
let member: { id: string; authorization: string };
let webhook: { id: string; token: string };
let hiddenNode: string, systemEdge: string, openNode: string, systemEdgeOfOpenNode: string;

beforeAll(async () => {
  ctx = await setupTestContext();
  app = studioApp(ctx);
  owner = await ctx.ownerAuthorization();
  stranger = await ctx.addPerson('stranger');
  member = await ctx.addPerson('member');
  strangerStudio = await logIn(app, 'stranger');
  await request(app).post('/intentions/grant_access').set('Authorization', owner).send({ subject_id: member.id, object_id: ctx.collectionId, access: 'member' });
  webhook = (await request(app).post('/intentions/create_webhook').set('Authorization', owner).send({ collection_id: ctx.collectionId })).body;
  // Intake makes a hidden content node and a system belongs_to edge to the hidden collection.
  const intake = await request(app).post(`/api/webhook/${webhook.token}`).send({ title: 'hemmelig' });
  hiddenNode = intake.body.node_id;
  systemEdge = intake.body.edge_id;
  // An open node with a system edge to the hidden collection: the node is public, the edge not.
  openNode = (await request(app).post('/intentions/create_node').set('Authorization', owner).send({ node_kind: 'content', visibility: 'open' })).body.id;
  systemEdgeOfOpenNode = uuidv7();
  await ctx.database.db
    .insertInto('edges')
    .values({ id: systemEdgeOfOpenNode, source_id: openNode, target_id: ctx.collectionId, edge_type: 'observes', metadata: '{}', system: true, created_by: null })
    .execute();
});
afterAll(() => ctx.close());

describe('read paths', () => {
  it('no GET route shows a stranger a hidden node, a system edge or a webhook token', async () => {
    const doc = (await request(app).get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const getPaths = Object.keys(doc.paths).filter((p) => doc.paths[p]!.get);
    expect(getPaths).toEqual(expect.arrayContaining(['/admin/webhooks', '/nodes/{id}']));
    const secrets = [hiddenNode, systemEdge, systemEdgeOfOpenNode, webhook.token, webhook.id, ctx.collectionId];
    for (const path of getPaths) {
      for (const id of [hiddenNode, systemEdge, webhook.id, ctx.collectionId, openNode]) {
        const req = request(app).get(path.replace(/\{\w+\}/g, id));
        const res = await (path.startsWith('/studio') ? req.set('Cookie', strangerStudio.cookie) : req.set('Authorization', stranger.authorization));
        // 403: routes a stranger may not use at all (/metrics and the job admin are for system admins).
        expect([path, [200, 400, 403, 404].includes(res.status)]).toEqual([path, true]);
        // A binary answer (the favicon) has no text to look through.
        const text = path === '/openapi.json' ? '' : (res.text ?? '');
        for (const secret of secrets) expect([path, id, text.includes(secret)]).toEqual([path, id, false]);
      }
    }
  });

  it('a stranger reads an open node but not its system edge to a collection they cannot see', async () => {
    const res = await request(app).get(`/nodes/${openNode}`).set('Authorization', stranger.authorization);
    expect(res.status).toBe(200);
    expect(res.body.edges.map((e: { id: string }) => e.id)).not.toContain(systemEdgeOfOpenNode);
  });

  it('a member of the collection sees the hidden node and its system edge', async () => {
    const res = await request(app).get(`/nodes/${hiddenNode}`).set('Authorization', member.authorization);
    expect(res.status).toBe(200);
    expect(res.body.edges).toEqual([expect.objectContaining({ id: systemEdge, system: true })]);
  });

  it('a member reads the webhook without its token; the owner reads the token', async () => {
    const asMember = await request(app).get(`/nodes/${webhook.id}`).set('Authorization', member.authorization);
    expect(asMember.status).toBe(200);
    expect(asMember.body.node.metadata).not.toHaveProperty('token');
    const asOwner = await request(app).get(`/nodes/${webhook.id}`).set('Authorization', owner);
    expect(asOwner.body.node.metadata.token).toBe(webhook.token);
  });

  it('a discoverable node reaches a stranger as a summary, without content or metadata', async () => {
    const created = await request(app)
      .post('/intentions/create_node')
      .set('Authorization', owner)
      .send({ node_kind: 'content', visibility: 'discoverable', content: 'innhold', metadata: { a: 1 } });
    const res = await request(app).get(`/nodes/${created.body.id}`).set('Authorization', stranger.authorization);
    expect(res.body.node).toMatchObject({ content: null, metadata: {}, visibility: 'discoverable' });
  });

  it('a member who loses membership loses the hidden node at once', async () => {
    const leaver = await ctx.addPerson('leaver');
    await request(app).post('/intentions/grant_access').set('Authorization', owner).send({ subject_id: leaver.id, object_id: ctx.collectionId, access: 'reader' });
    expect((await request(app).get(`/nodes/${hiddenNode}`).set('Authorization', leaver.authorization)).status).toBe(200);
    await request(app).post('/intentions/revoke_access').set('Authorization', owner).send({ subject_id: leaver.id, object_id: ctx.collectionId });
    expect((await request(app).get(`/nodes/${hiddenNode}`).set('Authorization', leaver.authorization)).status).toBe(404);
  });
});
