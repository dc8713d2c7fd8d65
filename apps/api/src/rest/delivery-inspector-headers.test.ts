import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';

// The delivery inspector keeps a request's headers with every secret masked (docs/deliveries.md#inspector):
// found by the red team, a header that echoes the webhook's URL (Referer, a proxy's X-Original-URL)
// kept the token, and an HMAC signature header not named "signature" was kept as sent.
let ctx: TestContext;
let app: Express;
let webhook: { id: string; token: string };

async function detail(requestId: string) {
  const res = await request(app).get(`/admin/webhooks/${webhook.id}/requests/${requestId}`).set('Authorization', await ctx.ownerAuthorization());
  expect(res.status).toBe(200);
  return res.body as { headers: Record<string, string> };
}

async function refusedRow(deliveryId: string) {
  for (let waited = 0; ; waited += 50) {
    const row = await ctx.database.db.selectFrom('webhook_refused_requests').select('id').where('webhook_id', '=', webhook.id).where('delivery_id', '=', deliveryId).executeTakeFirst();
    if (row || waited > 10_000) return row!;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const echoing = (token: string, deliveryId: string) => ({
  Referer: `http://inntak.test/api/webhook/${token}`,
  'X-Original-URL': `/api/webhook/${token.toUpperCase()}?a=1`,
  'X-Forwarded-Uri': `/api/webhook/${token}`,
  'X-Shopify-Hmac-Sha256': 'c2lnbmF0dXItZm9yLWJvZHk=',
  'X-GitHub-Delivery': deliveryId,
});

beforeAll(async () => {
  ctx = await setupTestContext();
  app = ctx.app();
  webhook = await ctx.addWebhook();
});
afterAll(() => ctx.close());

describe('headers the delivery inspector keeps', () => {
  it('a header echoing the webhook URL keeps :token in place of the token, accepted or refused, and an HMAC header is masked', async () => {
    const ok = await request(app).post(`/api/webhook/${webhook.token}`).set({ 'Content-Type': 'application/json', ...echoing(webhook.token, 'tatt-1') }).send({ text: 'hei' });
    expect(ok.status).toBe(200);
    const refused = await request(app).post(`/api/webhook/${webhook.token}`).set({ 'Content-Type': 'application/x-ukjent', ...echoing(webhook.token, 'avvist-1') }).send('noe');
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const accepted = await ctx.database.db.selectFrom('webhook_deliveries').select('id').where('node_id', '=', ok.body.node_id).executeTakeFirstOrThrow();
    for (const id of [accepted.id, (await refusedRow('avvist-1')).id]) {
      const { headers } = await detail(id);
      expect(JSON.stringify(headers).toLowerCase()).not.toContain(webhook.token);
      expect(headers.referer).toBe('http://inntak.test/api/webhook/:token');
      expect(headers['x-original-url']).toBe('/api/webhook/:token?a=1');
      expect(headers['x-shopify-hmac-sha256']).toBe('••••••');
    }
  });

  it('a request on a rotated-away token in its grace does not keep that token in its headers either', async () => {
    const old = webhook.token;
    const rotated = await request(app).post('/intentions/rotate_webhook_token').set('Authorization', await ctx.ownerAuthorization()).send({ webhook_id: webhook.id, grace_hours: 1 });
    expect(rotated.status).toBe(200);
    const ok = await request(app).post(`/api/webhook/${old}`).set({ 'Content-Type': 'application/json', ...echoing(old, 'gammel-1') }).send({ text: 'hei' });
    expect(ok.status).toBe(200);
    const accepted = await ctx.database.db.selectFrom('webhook_deliveries').select('id').where('node_id', '=', ok.body.node_id).executeTakeFirstOrThrow();
    expect(JSON.stringify((await detail(accepted.id)).headers).toLowerCase()).not.toContain(old);
  });
});
