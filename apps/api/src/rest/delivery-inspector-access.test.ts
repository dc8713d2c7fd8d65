import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';

// Every read path filters by the caller's access: the inspector shows an accepted request's body
// from its content node, so a node the caller may no longer read (moved to a collection hidden
// from them) must not be shown or replayed through it. Found by the red team.
let ctx: TestContext;
let app: Express;
let webhook: { id: string; token: string };
let admin: { id: string; authorization: string };

const post = (path: string, authorization: string, body: object) => request(app).post(path).set('Authorization', authorization).send(body);

beforeAll(async () => {
  ctx = await setupTestContext();
  app = ctx.app();
  webhook = await ctx.addWebhook();
  admin = await ctx.addPerson('samling-admin');
  expect((await post('/intentions/grant_access', await ctx.ownerAuthorization(), { subject_id: admin.id, object_id: ctx.collectionId, access: 'admin' })).status).toBeLessThan(300);
});
afterAll(() => ctx.close());

describe('the delivery inspector and a delivered node the caller cannot read', () => {
  it('an admin of the webhook’s collection who cannot read the delivered node (moved to another collection) sees no body, and replay is 409 with no node made', async () => {
    const owner = await ctx.ownerAuthorization();
    const delivered = await request(app).post(`/api/webhook/${webhook.token}`).set('Content-Type', 'application/json').send({ text: 'hei' });
    expect(delivered.status).toBe(200);
    const nodeId = delivered.body.node_id as string;
    const row = await ctx.database.db.selectFrom('webhook_deliveries').select('id').where('node_id', '=', nodeId).executeTakeFirstOrThrow();
    expect((await request(app).get(`/admin/webhooks/${webhook.id}/requests/${row.id}`).set('Authorization', admin.authorization)).body.body).toMatchObject({ from_node: true });

    // The owner moves the node into a collection only they can read, and its payload is changed there.
    const hidden = (await post('/intentions/create_collection', owner, { title: 'Lukket' })).body.id as string;
    expect((await post('/intentions/create_edge', owner, { source_id: nodeId, target_id: hidden, edge_type: 'belongs_to' })).status).toBe(201);
    const edge = await ctx.database.db.selectFrom('edges').select('id').where('source_id', '=', nodeId).where('target_id', '=', ctx.collectionId).where('edge_type', '=', 'belongs_to').executeTakeFirstOrThrow();
    expect((await post('/intentions/delete_edge', owner, { edge_id: edge.id })).status).toBe(200);
    // As an orchestration's set_metadata in the hidden collection would (metadata is its members' to write).
    await ctx.database.pool.query(`update nodes set metadata = jsonb_set(metadata, '{payload}', '{"text": "hemmelig i den lukkede samlingen"}') where id = $1`, [nodeId]);
    expect((await request(app).get(`/nodes/${nodeId}`).set('Authorization', admin.authorization)).status).toBe(404);

    const detail = await request(app).get(`/admin/webhooks/${webhook.id}/requests/${row.id}`).set('Authorization', admin.authorization);
    expect(detail.status).toBe(200);
    expect(detail.body.body).toBeNull();
    expect(JSON.stringify(detail.body)).not.toContain('hemmelig');

    const nodesBefore = await ctx.database.db.selectFrom('nodes').select('id').execute();
    const replay = await post(`/admin/webhooks/${webhook.id}/deliveries/${row.id}/replay`, admin.authorization, {});
    expect(replay.status).toBe(409);
    expect(replay.body).toEqual({ error: 'Konflikt: leveransen har ikke noe lagret innhold å spille av' });
    expect(await ctx.database.db.selectFrom('nodes').select('id').execute()).toHaveLength(nodesBefore.length);

    // Its owner, who reads it, still sees it.
    expect((await request(app).get(`/admin/webhooks/${webhook.id}/requests/${row.id}`).set('Authorization', owner)).body.body.text).toContain('hemmelig');
  });
});
