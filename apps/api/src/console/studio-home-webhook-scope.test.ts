import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { get, logIn, studioApp } from '../__tests__/studio-scene.js';

// The home page's failing webhooks are the caller's as requireWebhookAdmin judges them: admin on
// the webhook's collection, its first belongs_to. Found by the red team: a second belongs_to
// (create_edge lets the webhook's admin add one) put the webhook on the home page of that other
// node's admins, who may not administer it (403 on its page).
let ctx: TestContext;
let app: Express;

beforeAll(async () => {
  ctx = await setupTestContext();
  app = studioApp(ctx);
});
afterAll(() => ctx.close());

describe('the console home page and a webhook linked into another collection', () => {
  it('an admin of a second collection a webhook belongs_to does not see it among failing webhooks; its own admins do', async () => {
    const other = await ctx.addPerson('annen-eier');
    const otherCollection = (await request(app).post('/intentions/create_collection').set('Authorization', other.authorization).send({ title: 'Annen' })).body.id as string;
    expect((await request(app).post('/intentions/grant_access').set('Authorization', other.authorization).send({ subject_id: ctx.ownerId, object_id: otherCollection, access: 'member' })).status).toBeLessThan(300);
    const webhook = await ctx.addWebhook(null);
    await request(app).post('/intentions/rename_webhook').set('Authorization', await ctx.ownerAuthorization()).send({ webhook_id: webhook.id, title: 'Lenket webhook' });
    expect((await request(app).post('/intentions/create_edge').set('Authorization', await ctx.ownerAuthorization()).send({ source_id: webhook.id, target_id: otherCollection, edge_type: 'belongs_to' })).status).toBe(201);
    await ctx.database.pool.query(`insert into webhook_secrets (webhook_id, scheme, secret) values ($1, 'github', 'hemmelig')`, [webhook.id]);
    for (let i = 0; i < 2; i++) expect((await request(app).post(`/api/webhook/${webhook.token}`).send({ title: 'usignert' })).status).toBe(401);
    for (let waited = 0; waited < 10_000; waited += 50) {
      if ((await ctx.database.db.selectFrom('webhook_refusals').select('id').where('webhook_id', '=', webhook.id).execute()).length) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect((await get(app, await logIn(app, 'owner-subject'), '/studio')).text).toContain('Lenket webhook');
    const otherBrowser = await logIn(app, 'annen-eier');
    expect([403, 404]).toContain((await get(app, otherBrowser, `/studio/webhooks/${webhook.id}`)).status);
    expect((await get(app, otherBrowser, '/studio')).text).not.toContain('Lenket webhook');
  });
});
