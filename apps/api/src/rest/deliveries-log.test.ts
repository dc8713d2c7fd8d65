import { describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import request from 'supertest';
import { sql } from 'kysely';
import { pruneDeliveries } from '@inntak/postgres/deliveries';
import { app, ctx, deliver, deliveries, GITHUB_PUSH, member, owner, setSecret, setupDeliveriesScene, stranger, sysadmin } from '../__tests__/deliveries-scene.js';

// Issue 17 through HTTP against real PostgreSQL: the delivery log, and refusals counted in it.

setupDeliveriesScene();

describe('delivery log', () => {
  it('records a 200 with its node, edge, delivery id, event and size; a 400, a 413 and a 415 with their error texts', async () => {
    const webhook = await ctx.addWebhook('forge-push');
    const ok = await deliver(webhook.token, GITHUB_PUSH, { 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': 'a1b2c3d4-0000-11ef-8000-000000000001' });
    expect(ok.status).toBe(200);
    const bad = await deliver(webhook.token, '{"broken": ', { 'X-GitHub-Event': 'push' });
    expect(bad.status).toBe(400);
    const big = await deliver(webhook.token, JSON.stringify({ pad: 'x'.repeat(70 * 1024) }));
    expect(big.status).toBe(413);
    const encoded = await deliver(webhook.token, '{}', { 'Content-Encoding': 'compress' });
    expect(encoded.status).toBe(415);

    const res = await deliveries(webhook.id);
    expect(res.status).toBe(200);
    expect(res.body.next_cursor).toBeNull();
    const [unsupported, tooLarge, invalid, stored] = res.body.deliveries;
    expect(stored).toEqual({
      id: expect.any(String),
      webhook_id: webhook.id,
      received_at: expect.any(String),
      status: 200,
      node_id: ok.body.node_id,
      edge_id: ok.body.edge_id,
      delivery_id: 'a1b2c3d4-0000-11ef-8000-000000000001',
      event: 'push',
      duplicate: false,
      bytes: GITHUB_PUSH.length,
      duration_ms: expect.any(Number),
    });
    expect(invalid).toMatchObject({ status: 400, error: expect.stringMatching(/^Ugyldig JSON i forespørselen/), event: 'push', duplicate: false });
    expect(invalid.node_id).toBeUndefined();
    expect(tooLarge).toMatchObject({ status: 413, error: 'Forespørselen er for stor' });
    expect(tooLarge.bytes).toBeGreaterThan(70 * 1024);
    expect(unsupported).toMatchObject({ status: 415, error: 'Kodingen støttes ikke: Content-Encoding compress' });
  });

  it('never holds the token, the body or signature headers', async () => {
    const webhook = await ctx.addWebhook('forge-push');
    await deliver(webhook.token, JSON.stringify({ ref: 'refs/heads/main', secret_marker: 'body-only-text' }), {
      'X-GitHub-Event': 'push',
      'X-Hub-Signature-256': 'sha256=' + 'ab'.repeat(32),
    });
    const rows = await ctx.database.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', webhook.id).execute();
    expect(rows).toHaveLength(1);
    const text = JSON.stringify(rows);
    expect(text).not.toContain(webhook.token);
    expect(text).not.toContain('body-only-text');
    expect(text).not.toContain('abab');
  });

  it('a request to an unknown token is not logged anywhere (no webhook to log it under)', async () => {
    const before = await ctx.database.db.selectFrom('webhook_deliveries').select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow();
    const res = await deliver('0193a5b2-7c1d-7e4f-9a10-2b3c4d5e6f70', '{}');
    expect(res.status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const after = await ctx.database.db.selectFrom('webhook_deliveries').select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('pages newest first with next_cursor, and filters by status, failed and duplicate', async () => {
    const webhook = await ctx.addWebhook(null);
    for (let i = 0; i < 5; i++) expect((await deliver(webhook.token, JSON.stringify({ i }))).status).toBe(200);
    expect((await deliver(webhook.token, 'nope')).status).toBe(400);
    expect((await deliver(webhook.token, '{}', { 'X-Gitea-Delivery': 'same' })).status).toBe(200);
    expect((await deliver(webhook.token, '{}', { 'X-Gitea-Delivery': 'same' })).status).toBe(200);

    const first = await deliveries(webhook.id, '?limit=3');
    expect(first.body.deliveries.map((d: { status: number; duplicate: boolean }) => [d.status, d.duplicate])).toEqual([
      [200, true],
      [200, false],
      [400, false],
    ]);
    const rest = await deliveries(webhook.id, `?limit=10&cursor=${first.body.next_cursor}`);
    expect(rest.body.deliveries).toHaveLength(5);
    expect(rest.body.next_cursor).toBeNull();
    const ids = [...first.body.deliveries, ...rest.body.deliveries].map((d: { id: string }) => d.id);
    expect(ids).toEqual([...ids].sort().reverse());

    expect((await deliveries(webhook.id, '?status=400')).body.deliveries.map((d: { status: number }) => d.status)).toEqual([400]);
    expect((await deliveries(webhook.id, '?status=failed')).body.deliveries).toHaveLength(1);
    expect((await deliveries(webhook.id, '?status=duplicate')).body.deliveries).toHaveLength(1);
    const wrong = await deliveries(webhook.id, '?status=fine');
    expect(wrong.status).toBe(400);
  });

  it('is read by owners and system administrators; a member gets 403, a stranger 404, no token 401', async () => {
    const webhook = await ctx.addWebhook(null);
    await deliver(webhook.token, '{}');
    expect((await deliveries(webhook.id, '', owner)).body.deliveries).toHaveLength(1);
    expect((await deliveries(webhook.id, '', sysadmin.authorization)).body.deliveries).toHaveLength(1);
    const asMember = await deliveries(webhook.id, '', member.authorization);
    expect(asMember.status).toBe(403);
    expect(asMember.body).toEqual({ error: 'Ingen tilgang' });
    const asStranger = await deliveries(webhook.id, '', stranger.authorization);
    expect(asStranger.status).toBe(404);
    expect((await request(app).get(`/admin/webhooks/${webhook.id}/deliveries`)).status).toBe(401);
    // Not a webhook: 404 like a webhook the caller cannot see.
    expect((await deliveries(ctx.collectionId, '', owner)).status).toBe(404);
  });

  it('a failed log write after a refused request leaves the answer as it was and is logged', async () => {
    const webhook = await ctx.addWebhook(null);
    const real = ctx.app({ bodyLimitBytes: 1024 });
    await ctx.database.db.schema.alterTable('webhook_refusals').renameTo('webhook_refusals_away').execute();
    try {
      const res = await request(real).post(`/api/webhook/${webhook.token}`).set('Content-Type', 'application/json').send('nope');
      expect(res.status).toBe(400);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(ctx.logs.some((l) => l.message === 'delivery log write failed' && l.webhook_id === webhook.id && l.status === 400)).toBe(true);
    } finally {
      await ctx.database.db.schema.alterTable('webhook_refusals_away').renameTo('webhook_refusals').execute();
    }
  });
});

describe('refusals are counted, not logged a row each (issue 22, finding 12)', () => {
  /** The webhook's refusal rows once `total` requests are counted (they are written after the answer). */
  async function refusalRows(webhookId: string, total: number) {
    for (let waited = 0; ; waited += 50) {
      const rows = await ctx.database.db.selectFrom('webhook_refusals').selectAll().where('webhook_id', '=', webhookId).execute();
      if (rows.reduce((sum, r) => sum + r.count, 0) >= total || waited > 10_000) return rows;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('300 unsigned POSTs add one row (a minute), leave every accepted delivery in the log, and are shown counted', async () => {
    const webhook = await ctx.addWebhook(null);
    await setSecret(webhook.id, 'github', 'flood-secret');
    const accepted = [];
    for (let i = 0; i < 3; i++) {
      const body = JSON.stringify({ i });
      const res = await deliver(webhook.token, body, { 'X-Hub-Signature-256': `sha256=${createHmac('sha256', 'flood-secret').update(body).digest('hex')}` });
      expect(res.status).toBe(200);
      accepted.push(res.body.node_id);
    }
    for (let batch = 0; batch < 15; batch++) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) => deliver(webhook.token, '{}', { 'X-GitHub-Delivery': `attacker-${batch}-${i}`, 'X-GitHub-Event': 'push' })),
      );
      expect(answers.every((a) => a.status === 401)).toBe(true);
    }
    const rows = await refusalRows(webhook.id, 300);
    expect(rows.length).toBeLessThanOrEqual(2); // 2 only if a minute turned during the flood
    expect(rows.reduce((sum, r) => sum + r.count, 0)).toBe(300);
    expect(rows.every((r) => r.status === 401 && r.error === 'Ugyldig signatur: signaturen mangler (X-Hub-Signature-256)')).toBe(true);
    // The first 20 of a minute are kept whole for the inspector, the rest only counted.
    const keptWhole = await ctx.database.db.selectFrom('webhook_refused_requests').select('id').where('webhook_id', '=', webhook.id).execute();
    expect(keptWhole.length).toBe(rows.reduce((sum, r) => sum + r.kept, 0));
    expect(keptWhole.length).toBeGreaterThanOrEqual(20);
    expect(keptWhole.length).toBeLessThanOrEqual(20 * rows.length + 8); // 8: what may race past the bound
    const kept = await ctx.database.db.selectFrom('webhook_deliveries').select('node_id').where('webhook_id', '=', webhook.id).orderBy('id').execute();
    expect(kept.map((r) => r.node_id)).toEqual(accepted);

    // Retention counts accepted deliveries apart: a limit of 3 per webhook keeps all three.
    await pruneDeliveries(ctx.database.db, { days: 30, perWebhook: 3, batch: 1000 });
    expect((await ctx.database.db.selectFrom('webhook_deliveries').select('node_id').where('webhook_id', '=', webhook.id).execute()).length).toBe(3);

    // The admin's view shows them, counted, among the accepted ones.
    const log = (await deliveries(webhook.id)).body.deliveries as Array<{ status: number; count?: number; last_received_at?: string; node_id?: string }>;
    expect(log.filter((d) => d.status === 200).map((d) => d.node_id)).toEqual([...accepted].reverse());
    const counted = log.filter((d) => d.status === 401);
    expect(counted.reduce((sum, d) => sum + d.count!, 0)).toBe(300);
    expect(counted[0]).toMatchObject({ error: 'Ugyldig signatur: signaturen mangler (X-Hub-Signature-256)', duplicate: false, last_received_at: expect.any(String) });
    const failed = (await deliveries(webhook.id, '?status=failed')).body.deliveries;
    expect(failed).toHaveLength(counted.length);
  });

  it('a detail of the sender’s choosing (the encoding’s name) does not make a row per request', async () => {
    const webhook = await ctx.addWebhook(null);
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => deliver(webhook.token, '{}', { 'Content-Encoding': `x-made-up-${i}` })));
    expect(answers.every((a) => a.status === 415)).toBe(true);
    const rows = await refusalRows(webhook.id, 30);
    expect(rows.length).toBeLessThanOrEqual(2);
    expect(rows[0]).toMatchObject({ status: 415, reason: 'Kodingen støttes ikke', error: expect.stringMatching(/^Kodingen støttes ikke: Content-Encoding x-made-up-/) });
  });
});
