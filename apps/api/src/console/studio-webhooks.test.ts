import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { get, logIn, postForm, studioApp, type Browser } from '../__tests__/studio-scene.js';

let ctx: TestContext;
let app: Express;
let owner: Browser;
let member: Browser;
let stranger: Browser;
let webhook: { id: string; token: string };
let nodeId: string;

beforeAll(async () => {
  ctx = await setupTestContext();
  app = studioApp(ctx);
  const memberPerson = await ctx.addPerson('medlem');
  await ctx.addPerson('fremmed');
  const grant = await request(app).post('/intentions/grant_access').set('Authorization', await ctx.ownerAuthorization()).send({ subject_id: memberPerson.id, object_id: ctx.collectionId, access: 'member' });
  expect(grant.status).toBe(200);
  webhook = await ctx.addWebhook(null);
  const delivered = await request(app).post(`/api/webhook/${webhook.token}`).send({ title: 'Første', content: 'Hei <b>verden</b>' });
  expect(delivered.status).toBe(200);
  nodeId = delivered.body.node_id;
  await ctx.database.pool.query(`insert into webhook_secrets (webhook_id, scheme, secret) values ($1, 'github', 'hemmelig')`, [webhook.id]);
  expect((await request(app).post(`/api/webhook/${webhook.token}`).send({ title: 'usignert' })).status).toBe(401);
  await ctx.database.pool.query('delete from webhook_secrets where webhook_id = $1', [webhook.id]);
  owner = await logIn(app, 'owner-subject');
  member = await logIn(app, 'medlem');
  stranger = await logIn(app, 'fremmed');
});
afterAll(() => ctx.close());

describe('webhook pages answer strangers and lower roles as the API does', () => {
  it('a stranger gets 404 for the webhook, a member of its collection 403, its admin 200', async () => {
    expect((await get(app, stranger, `/studio/webhooks/${webhook.id}`)).status).toBe(404);
    expect((await get(app, member, `/studio/webhooks/${webhook.id}`)).status).toBe(403);
    expect((await get(app, owner, `/studio/webhooks/${webhook.id}`)).status).toBe(200);
    expect((await get(app, member, `/studio/webhooks/${webhook.id}/noder/${nodeId}`)).status).toBe(403);
  });

  it("the list shows only the webhooks one administers", async () => {
    expect((await get(app, member, '/studio/webhooks')).text).toContain('Du administrerer ingen webhooks.');
    expect((await get(app, owner, '/studio/webhooks')).text).toContain(`/studio/webhooks/${webhook.id}`);
  });

  it('a member cannot rotate the token (403) and the token stays', async () => {
    const res = await postForm(app, member, `/studio/webhooks/${webhook.id}/nytt-token`, {});
    expect(res.status).toBe(403);
    expect((await request(app).post(`/api/webhook/${webhook.token}`).send({})).status).toBe(200);
  });
});

describe('the webhook administrator', () => {
  it('sees the URL with a copy button and filters the delivery log to the 401s', async () => {
    const page = await get(app, owner, `/studio/webhooks/${webhook.id}`);
    expect(page.text).toContain(`/api/webhook/${webhook.token}`);
    expect(page.text).toContain('data-copy="url"');
    const refused = await get(app, owner, `/studio/webhooks/${webhook.id}?status=401`);
    expect(refused.text).toContain('Ugyldig signatur');
    expect(refused.text).not.toContain(`/noder/${nodeId}`);
  });

  it("sees a delivery's stored payload escaped, and a preview with another template", async () => {
    const page = await get(app, owner, `/studio/webhooks/${webhook.id}/noder/${nodeId}?mal=chat-message`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Hei &lt;b&gt;verden&lt;/b&gt;');
    expect(page.text).not.toContain('<b>verden</b>');
    expect(page.text).toMatch(/<option value="chat-message" selected>/);
  });

  it('re-renders a node with the webhook template and sees the progress of re-rendering all', async () => {
    const one = await postForm(app, owner, `/studio/webhooks/${webhook.id}/noder/${nodeId}/gjengi`, {});
    expect(one.status).toBe(303);
    const all = await postForm(app, owner, `/studio/webhooks/${webhook.id}/gjengi`, {});
    expect(all.status).toBe(200);
    expect(all.text).toMatch(/<progress max="2" value="2">/);
    expect(all.text).toContain('Ferdig: 2 gjengitt');
  });

  it('changes the template through set_template; an unknown one is refused (400 Ukjent mal)', async () => {
    expect((await postForm(app, owner, `/studio/webhooks/${webhook.id}/mal`, { template_id: 'forge-push' })).status).toBe(303);
    const { rows } = await ctx.database.pool.query(`select metadata ->> 'template_id' as t from nodes where id = $1`, [webhook.id]);
    expect(rows[0].t).toBe('forge-push');
    const bad = await postForm(app, owner, `/studio/webhooks/${webhook.id}/mal`, { template_id: 'finnes-ikke' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Ukjent mal');
  });

  it('sets a signing secret, shown once, and clears it again', async () => {
    const set = await postForm(app, owner, `/studio/webhooks/${webhook.id}/signering`, { scheme: 'github', secret: '' });
    expect(set.status).toBe(200);
    const secret = /id="hemmelighet" class="secret">([0-9a-f]{64})</.exec(set.text)?.[1];
    expect(secret).toBeDefined();
    expect((await get(app, owner, `/studio/webhooks/${webhook.id}`)).text).not.toContain(secret!);
    expect((await request(app).post(`/api/webhook/${webhook.token}`).send({})).status).toBe(401);
    expect((await postForm(app, owner, `/studio/webhooks/${webhook.id}/signering`, { scheme: 'none' })).status).toBe(200);
    expect((await request(app).post(`/api/webhook/${webhook.token}`).send({})).status).toBe(200);
  });

  it('rotates the token with no grace: the new URL is shown and the old one answers 404', async () => {
    const res = await postForm(app, owner, `/studio/webhooks/${webhook.id}/nytt-token`, { grace_hours: '0' });
    expect(res.status).toBe(200);
    const url = /id="ny-url" class="secret">([^<]+)</.exec(res.text)![1]!;
    expect(url).not.toContain(webhook.token);
    expect((await request(app).post(`/api/webhook/${webhook.token}`).send({})).status).toBe(404);
  });
});
