import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import request from 'supertest';
import type { Express } from 'express';
import { sql } from 'kysely';
import { tokenHash } from '@inntak/intake';
import { INTAKE_STATEMENTS } from '@inntak/postgres/intake';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';

// Safe rotation (issue 39, point 3) through HTTP against a real PostgreSQL: the old token stays
// accepted for the grace period chosen, every request with it is counted and marked in the
// delivery log, and the grace ends by time or early on demand.

let ctx: TestContext;
let app: Express;
let owner: string;
let member: { id: string; authorization: string };
let stranger: { id: string; authorization: string };

beforeAll(async () => {
  ctx = await setupTestContext();
  app = ctx.app();
  owner = await ctx.ownerAuthorization();
  member = await ctx.addPerson('member');
  stranger = await ctx.addPerson('stranger');
  expect((await post('/intentions/grant_access', owner, { subject_id: member.id, object_id: ctx.collectionId, access: 'member' })).status).toBe(200);
});
afterAll(() => ctx.close());

function post(path: string, authorization: string, body: unknown) {
  return request(app).post(path).set('Authorization', authorization).send(body as object);
}

const deliver = (token: string, body: object = { title: 'levering' }, headers: Record<string, string> = {}) => request(app).post(`/api/webhook/${token}`).set(headers).send(body);

async function rotated(body: Record<string, unknown> = {}) {
  const webhook = await ctx.addWebhook();
  const res = await post('/intentions/rotate_webhook_token', owner, { webhook_id: webhook.id, ...body });
  expect(res.status).toBe(200);
  return { id: webhook.id, old: webhook.token, token: (res.body as { token: string }).token };
}

type PreviousView = { rotated_at: string; grace_until: string; ended_early: boolean; active: boolean; hits: number; last_hit_at: string | null };

async function previousTokens(webhookId: string, authorization = owner): Promise<PreviousView[]> {
  const res = await request(app).get(`/admin/webhooks/${webhookId}/previous-tokens`).set('Authorization', authorization);
  expect(res.status).toBe(200);
  return res.body as PreviousView[];
}

async function log(webhookId: string) {
  const res = await request(app).get(`/admin/webhooks/${webhookId}/deliveries`).set('Authorization', owner);
  return (res.body as { deliveries: Array<{ status: number; node_id?: string; previous_token?: boolean; count?: number }> }).deliveries;
}

describe('rotate_webhook_token with a grace period', () => {
  it('keeps the old token accepted for 24 hours by default, beside the new one, and marks and counts every delivery that came with it', async () => {
    const w = await rotated();
    const viaOld = await deliver(w.old, { title: 'gammel' });
    expect(viaOld.status).toBe(200);
    expect((await deliver(w.token, { title: 'ny' })).status).toBe(200);
    const rows = await log(w.id);
    expect(rows.find((r) => r.node_id === viaOld.body.node_id)).toMatchObject({ status: 200, previous_token: true });
    expect(rows.filter((r) => r.previous_token)).toHaveLength(1);
    const [previous] = await previousTokens(w.id);
    expect(previous).toMatchObject({ active: true, ended_early: false, hits: 1, last_hit_at: expect.any(String) });
    expect(Date.parse(previous!.grace_until) - Date.parse(previous!.rotated_at)).toBe(24 * 3600 * 1000);
  });

  it('counts a refused request with the old token as a hit too, in a refusal row of its own marked previous_token', async () => {
    const w = await rotated({ grace_hours: 2 });
    expect((await post('/intentions/set_webhook_secret', owner, { webhook_id: w.id, scheme: 'github', secret: 'grace-secret' })).status).toBe(200);
    expect((await deliver(w.old)).status).toBe(401);
    expect((await deliver(w.token)).status).toBe(401);
    const body = JSON.stringify({ title: 'signert' });
    const signature = `sha256=${createHmac('sha256', 'grace-secret').update(body).digest('hex')}`;
    const signed = await request(app).post(`/api/webhook/${w.old}`).set({ 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': signature }).send(body);
    expect(signed.status).toBe(200);
    // A refusal is logged once answered: wait for both rows.
    let refusals: Awaited<ReturnType<typeof log>> = [];
    for (let tries = 0; tries < 300 && refusals.length < 2; tries++) {
      refusals = (await log(w.id)).filter((r) => r.status === 401);
      if (refusals.length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(refusals.map((r) => r.previous_token ?? false).sort()).toEqual([false, true]);
    expect((await previousTokens(w.id))[0]).toMatchObject({ hits: 2, active: true });
  });

  it('stops accepting the old token when its grace ends by time (the database clock)', async () => {
    const w = await rotated({ grace_hours: 10 / 3600 });
    expect((await deliver(w.old)).status).toBe(200);
    let status = 200;
    for (let tries = 0; tries < 600 && status === 200; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await deliver(w.old)).status;
    }
    expect(status).toBe(404);
    expect((await deliver(w.token)).status).toBe(200);
    expect((await previousTokens(w.id))[0]).toMatchObject({ active: false, ended_early: false });
  });

  it('with grace_hours 0 answers 404 to the old token at once and keeps no previous token', async () => {
    const w = await rotated({ grace_hours: 0 });
    expect((await deliver(w.old)).status).toBe(404);
    expect(await previousTokens(w.id)).toEqual([]);
  });

  it('finds a previous token by its hash through the primary key, not a scan', async () => {
    const w = await rotated();
    const lookup = INTAKE_STATEMENTS.findWebhook.text.replace('$1', `'${w.old}'`).replace('$2', `'${tokenHash(w.old)}'`);
    const plan = await ctx.database.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      return sql.raw<{ 'QUERY PLAN': string }>(`explain ${lookup}`).execute(trx);
    });
    const text = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(text).toContain('webhook_previous_tokens_pkey');
    expect(text).not.toMatch(/Seq Scan on webhook_previous_tokens/);
  });

  it('refuses a grace outside 0–168 hours with 400 and changes nothing', async () => {
    const webhook = await ctx.addWebhook();
    for (const grace_hours of [-1, 169, '24']) {
      const res = await post('/intentions/rotate_webhook_token', owner, { webhook_id: webhook.id, grace_hours });
      expect(res.status).toBe(400);
    }
    expect((await deliver(webhook.token)).status).toBe(200);
    expect(await previousTokens(webhook.id)).toEqual([]);
  });
});

describe('end_webhook_token_grace', () => {
  it('ends the grace now: the old token answers 404, the new one still works, and the console data says ended early', async () => {
    const w = await rotated();
    expect((await deliver(w.old)).status).toBe(200);
    const ended = await post('/intentions/end_webhook_token_grace', owner, { webhook_id: w.id });
    expect([ended.status, ended.body]).toEqual([200, { webhook_id: w.id, ended: 1 }]);
    expect((await deliver(w.old)).body).toEqual({ error: 'Ugyldig webhook-token' });
    expect((await deliver(w.token)).status).toBe(200);
    expect((await previousTokens(w.id))[0]).toMatchObject({ active: false, ended_early: true, hits: 1 });
    expect((await post('/intentions/end_webhook_token_grace', owner, { webhook_id: w.id })).body).toEqual({ webhook_id: w.id, ended: 0 });
  });

  it('is for the webhook’s administrators: 403 to a member, 404 to a stranger, and the grace stays', async () => {
    const w = await rotated();
    expect((await post('/intentions/end_webhook_token_grace', member.authorization, { webhook_id: w.id })).status).toBe(403);
    expect((await post('/intentions/end_webhook_token_grace', stranger.authorization, { webhook_id: w.id })).status).toBe(404);
    expect((await request(app).get(`/admin/webhooks/${w.id}/previous-tokens`).set('Authorization', member.authorization)).status).toBe(403);
    expect((await deliver(w.old)).status).toBe(200);
  });
});
