import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { get, logIn, postForm, studioApp, type Browser } from '../__tests__/studio-scene.js';

// Safe rotation in the console (issue 39, point 3): a confirmation with the grace period, the
// previous token's hits and grace end on the webhook's page, and its grace ended on demand.

let ctx: TestContext;
let app: Express;
let owner: Browser;
let member: Browser;

beforeAll(async () => {
  ctx = await setupTestContext();
  app = studioApp(ctx);
  const memberPerson = await ctx.addPerson('medlem');
  const grant = await request(app).post('/intentions/grant_access').set('Authorization', await ctx.ownerAuthorization()).send({ subject_id: memberPerson.id, object_id: ctx.collectionId, access: 'member' });
  expect(grant.status).toBe(200);
  owner = await logIn(app, 'owner-subject');
  member = await logIn(app, 'medlem');
});
afterAll(() => ctx.close());

const deliver = (token: string) => request(app).post(`/api/webhook/${token}`).send({ title: 'levering' });

describe('rotating a token in the console', () => {
  it('asks for confirmation with the grace period (24 hours unless changed) before anything changes', async () => {
    const webhook = await ctx.addWebhook(null);
    const page = await get(app, owner, `/studio/webhooks/${webhook.id}`);
    expect(page.text).toContain(`href="/studio/webhooks/${webhook.id}/nytt-token"`);
    const confirm = await get(app, owner, `/studio/webhooks/${webhook.id}/nytt-token`);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toMatch(/<label for="grace_hours">Overgangstid i timer/);
    expect(confirm.text).toMatch(/<input id="grace_hours" name="grace_hours" type="number" min="0" max="168" step="any" value="24" required>/);
    expect(confirm.text).toContain('<button type="submit">Roter token</button>');
    // Opening the confirmation changed nothing.
    expect((await deliver(webhook.token)).status).toBe(200);
  });

  it('keeps the old address for the grace, shows its hits and grace end on the webhook page and marks its deliveries, and ends the grace on demand', async () => {
    const webhook = await ctx.addWebhook(null);
    const rotated = await postForm(app, owner, `/studio/webhooks/${webhook.id}/nytt-token`, { grace_hours: '24' });
    expect(rotated.status).toBe(200);
    expect(rotated.text).toContain('Den gamle adressen tas imot til');
    const url = /id="ny-url" class="secret">([^<]+)</.exec(rotated.text)![1]!;
    expect(url).not.toContain(webhook.token);
    expect((await deliver(webhook.token)).status).toBe(200);
    expect((await deliver(webhook.token)).status).toBe(200);

    const page = (await get(app, owner, `/studio/webhooks/${webhook.id}`)).text;
    expect(page).toContain('<caption>Tidligere token');
    const row = /<tbody><tr><td><time[^>]*>[^<]*<\/time><\/td><td><time[^>]*>[^<]*<\/time><\/td><td>([^<]*)<\/td><td>(\d+)<\/td><td><time/.exec(page);
    expect([row?.[1], row?.[2]]).toEqual(['tas imot', '2']);
    expect(page.match(/200 \(forrige token\)/g)).toHaveLength(2);
    expect(page).toContain('Avslutt overgangstiden nå');

    const ended = await postForm(app, owner, `/studio/webhooks/${webhook.id}/avslutt-overgang`, {});
    expect([ended.status, ended.headers.location]).toEqual([303, `/studio/webhooks/${webhook.id}?ok=overgang`]);
    const after = (await get(app, owner, ended.headers.location!)).text;
    expect(after).toContain('Overgangstiden er avsluttet');
    expect(after).toContain('avsluttet tidlig');
    expect(after).not.toContain('Avslutt overgangstiden nå');
    expect((await deliver(webhook.token)).status).toBe(404);
  });

  it('with grace 0 the old address answers 404 at once', async () => {
    const webhook = await ctx.addWebhook(null);
    const rotated = await postForm(app, owner, `/studio/webhooks/${webhook.id}/nytt-token`, { grace_hours: '0' });
    expect(rotated.text).toContain('Den gamle adressen svarer 404 fra nå av.');
    expect((await deliver(webhook.token)).status).toBe(404);
  });

  it('a blank grace (spaces too) is the default 24 hours, not none', async () => {
    const webhook = await ctx.addWebhook(null);
    const rotated = await postForm(app, owner, `/studio/webhooks/${webhook.id}/nytt-token`, { grace_hours: '  ' });
    expect(rotated.status).toBe(200);
    expect(rotated.text).not.toContain('Den gamle adressen svarer 404 fra nå av.');
    expect((await deliver(webhook.token)).status).toBe(200);
  });

  it('refuses a grace outside 0–168 hours and keeps the token', async () => {
    const webhook = await ctx.addWebhook(null);
    for (const grace_hours of ['200', '-1', 'en dag']) {
      const res = await postForm(app, owner, `/studio/webhooks/${webhook.id}/nytt-token`, { grace_hours });
      expect(res.status).toBe(400);
      expect(res.text).toContain('grace_hours');
    }
    expect((await deliver(webhook.token)).status).toBe(200);
  });

  it('answers a member of the collection 403 on the confirmation and on ending a grace, and the grace stays', async () => {
    const webhook = await ctx.addWebhook(null);
    expect((await postForm(app, owner, `/studio/webhooks/${webhook.id}/nytt-token`, { grace_hours: '1' })).status).toBe(200);
    expect((await get(app, member, `/studio/webhooks/${webhook.id}/nytt-token`)).status).toBe(403);
    expect((await postForm(app, member, `/studio/webhooks/${webhook.id}/avslutt-overgang`, {})).status).toBe(403);
    expect((await deliver(webhook.token)).status).toBe(200);
  });
});
