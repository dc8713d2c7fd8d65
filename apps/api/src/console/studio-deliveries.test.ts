import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import request from 'supertest';
import type { Express } from 'express';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { get, logIn, postForm, studioApp, type Browser } from '../__tests__/studio-scene.js';

const SECRET = 'inspektør-hemmelighet';
let ctx: TestContext;
let app: Express;
let owner: Browser;
let member: Browser;
let webhook: { id: string; token: string };

const sign = (body: string) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

async function refusedRows(webhookId: string, total: number) {
  for (let waited = 0; ; waited += 50) {
    const rows = await ctx.database.db.selectFrom('webhook_refused_requests').selectAll().where('webhook_id', '=', webhookId).orderBy('id').execute();
    if (rows.length >= total || waited > 10_000) return rows;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  ctx = await setupTestContext();
  app = studioApp(ctx);
  const memberPerson = await ctx.addPerson('medlem');
  await request(app).post('/intentions/grant_access').set('Authorization', await ctx.ownerAuthorization()).send({ subject_id: memberPerson.id, object_id: ctx.collectionId, access: 'member' });
  owner = await logIn(app, 'owner-subject');
  member = await logIn(app, 'medlem');
});
afterAll(() => ctx.close());

describe('creating and managing a webhook in the console', () => {
  it('an admin creates a named webhook with a collection, a template and a github secret; the page shows URL and secret once', async () => {
    const form = await get(app, owner, '/studio/webhooks/ny');
    expect(form.status).toBe(200);
    expect(form.text).toContain(`value="${ctx.collectionId}"`);
    const res = await postForm(app, owner, '/studio/webhooks/ny', { title: 'GitHub: inntak', collection_id: ctx.collectionId, template_id: 'forge-push', scheme: 'github', secret: SECRET });
    expect(res.status).toBe(200);
    expect(res.text).toContain(SECRET);
    const row = await ctx.database.db.selectFrom('nodes').select(['id', 'title', 'metadata']).where('node_kind', '=', 'webhook').where('title', '=', 'GitHub: inntak').executeTakeFirstOrThrow();
    webhook = { id: row.id, token: (row.metadata as { token: string }).token };
    expect(res.text).toContain(`/api/webhook/${webhook.token}`);
    const list = await get(app, owner, '/studio/webhooks');
    expect(list.text).toContain('GitHub: inntak');
    expect(list.text).toContain('Avvist siste time');
  });

  it('a bad form comes back with the field named and nothing is created', async () => {
    const res = await postForm(app, owner, '/studio/webhooks/ny', { title: '', collection_id: ctx.collectionId, template_id: 'ingen-slik', scheme: 'none', secret: '' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('«Navn» må fylles ut.');
  });

  it('a member of the collection cannot create, rename or delete (403), and the webhook stays', async () => {
    expect((await postForm(app, member, '/studio/webhooks/ny', { title: 'x', collection_id: ctx.collectionId, template_id: '', scheme: 'none', secret: '' })).status).toBe(403);
    expect((await postForm(app, member, `/studio/webhooks/${webhook.id}/navn`, { title: 'kapret' })).status).toBe(403);
    expect((await postForm(app, member, `/studio/webhooks/${webhook.id}/slett`, {})).status).toBe(403);
  });

  it('renames it', async () => {
    expect((await postForm(app, owner, `/studio/webhooks/${webhook.id}/navn`, { title: 'GitHub: inntak-repoet' })).status).toBe(303);
    expect((await get(app, owner, `/studio/webhooks/${webhook.id}`)).text).toContain('GitHub: inntak-repoet');
  });
});

describe('the delivery inspector', () => {
  const body = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'acme/inntak' }, commits: [] });

  beforeAll(async () => {
    const good = await request(app).post(`/api/webhook/${webhook.token}`).set({ 'Content-Type': 'application/json', 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': 'god-1', 'X-Hub-Signature-256': sign(body) }).send(body);
    expect(good.status).toBe(200);
    const wrong = await request(app).post(`/api/webhook/${webhook.token}`).set({ 'Content-Type': 'application/json', 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': 'feil-1', 'X-Hub-Signature-256': sign('noe annet'), Authorization: 'Bearer hemmelig-bærer' }).send(body);
    expect(wrong.status).toBe(401);
    const missing = await request(app).post(`/api/webhook/${webhook.token}`).set({ 'Content-Type': 'application/json', 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': 'mangler-1' }).send(body);
    expect(missing.status).toBe(401);
    await refusedRows(webhook.id, 2);
  });

  it('lists every request with its exact reason and the sender’s delivery id; a wrong and a missing signature are two rows', async () => {
    const page = await get(app, owner, `/studio/webhooks/${webhook.id}/foresporsler`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Ugyldig signatur: signaturen stemmer ikke med hemmeligheten');
    expect(page.text).toContain('Ugyldig signatur: signaturen mangler (X-Hub-Signature-256)');
    for (const id of ['god-1', 'feil-1', 'mangler-1']) expect(page.text).toContain(`<code>${id}</code>`);
  });

  it('searches by delivery id and by status', async () => {
    const byId = await get(app, owner, `/studio/webhooks/${webhook.id}/foresporsler?leverings_id=feil-1`);
    expect(byId.text).toContain('feil-1');
    expect(byId.text).not.toContain('god-1');
    const accepted = (await request(app).get(`/admin/webhooks/${webhook.id}/requests?status=200`).set('Authorization', await ctx.ownerAuthorization())).body.requests;
    expect(accepted.map((r: { delivery_id: string }) => r.delivery_id)).toEqual(['god-1']);
  });

  it('shows a refused request’s headers with signature and authorization masked, and its body', async () => {
    const [wrong] = await ctx.database.db.selectFrom('webhook_refused_requests').select('id').where('webhook_id', '=', webhook.id).where('delivery_id', '=', 'feil-1').execute();
    const page = await get(app, owner, `/studio/webhooks/${webhook.id}/foresporsler/${wrong!.id}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('x-hub-signature-256');
    expect(page.text).not.toContain(sign('noe annet').slice(7));
    expect(page.text).not.toContain('hemmelig-bærer');
    expect(page.text).toContain('acme/inntak');
    expect(page.text).not.toContain(webhook.token);
  });

  it('replays a stored delivery: a new node, its log row marked as a replay of the original', async () => {
    const [wrong] = await ctx.database.db.selectFrom('webhook_refused_requests').select('id').where('webhook_id', '=', webhook.id).where('delivery_id', '=', 'feil-1').execute();
    expect((await postForm(app, member, `/studio/webhooks/${webhook.id}/foresporsler/${wrong!.id}/spill-av`, {})).status).toBe(403);
    const replayed = await postForm(app, owner, `/studio/webhooks/${webhook.id}/foresporsler/${wrong!.id}/spill-av`, {});
    expect(replayed.status).toBe(303);
    const row = await ctx.database.db.selectFrom('webhook_deliveries').selectAll().where('replay_of', '=', wrong!.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 200, delivery_id: 'feil-1', webhook_id: webhook.id });
    const node = await ctx.database.db.selectFrom('nodes').select(['metadata', 'created_by']).where('id', '=', row.node_id!).executeTakeFirstOrThrow();
    expect(node.metadata).toMatchObject({ source: 'webhook', webhook_id: webhook.id, replay_of: wrong!.id });
    const page = await get(app, owner, replayed.headers.location!.replace(/^.*\/studio/, '/studio'));
    expect(page.text).toContain('Avspilling av');
    // Through REST as well: the same use case, a second new node.
    const again = await request(app).post(`/admin/webhooks/${webhook.id}/deliveries/${row.id}/replay`).set('Authorization', await ctx.ownerAuthorization());
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ replay_of: row.id, node_id: expect.any(String) });
    expect(again.body.node_id).not.toBe(row.node_id);
  });

  it('a request refused before its body was read cannot be replayed (409), and says why', async () => {
    const [missing] = await ctx.database.db.selectFrom('webhook_refused_requests').select(['id', 'body']).where('webhook_id', '=', webhook.id).where('delivery_id', '=', 'mangler-1').execute();
    expect(missing!.body).toBeNull();
    const res = await request(app).post(`/admin/webhooks/${webhook.id}/deliveries/${missing!.id}/replay`).set('Authorization', await ctx.ownerAuthorization());
    expect(res.status).toBe(409);
  });

  it('deleting asks first, then removes the webhook and its kept requests', async () => {
    const confirm = await get(app, owner, `/studio/webhooks/${webhook.id}/slett`);
    expect(confirm.text).toContain('Ja, slett webhooken');
    expect((await postForm(app, owner, `/studio/webhooks/${webhook.id}/slett`, {})).status).toBe(303);
    expect((await get(app, owner, `/studio/webhooks/${webhook.id}`)).status).toBe(404);
    expect(await ctx.database.db.selectFrom('webhook_refused_requests').select('id').where('webhook_id', '=', webhook.id).execute()).toEqual([]);
  });
});
