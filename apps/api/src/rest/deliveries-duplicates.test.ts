import { describe, expect, it } from '@jest/globals';
import { createHmac, randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { contentNodesOf, ctx, deliver, deliveries, GITHUB_PUSH, setSecret, setupDeliveriesScene, SLACK_MESSAGE } from '../__tests__/deliveries-scene.js';

// Issue 17 through HTTP against real PostgreSQL: duplicate deliveries and their ids.

setupDeliveriesScene();

describe('duplicates', () => {
  it.each([
    ['X-GitHub-Delivery', { 'X-GitHub-Delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958', 'X-GitHub-Event': 'push' }],
    ['X-Gitea-Delivery', { 'X-Gitea-Delivery': 'f6266f16-1bf3-46a5-9ea4-602e06ead473', 'X-Gitea-Event': 'push' }],
    ['X-Gogs-Delivery', { 'X-Gogs-Delivery': 'f6266f16-1bf3-46a5-9ea4-602e06ead474' }],
    ['X-Gitlab-Event-UUID', { 'X-Gitlab-Event-UUID': '13792a34-cac6-4fda-95a8-c58e00a3954e', 'X-Gitlab-Event': 'Push Hook' }],
    ["Standard Webhooks' webhook-id", { 'webhook-id': 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W' }],
  ])('the same %s again answers 200 with the original node_id and edge_id and stores nothing new', async (_name, headers) => {
    const webhook = await ctx.addWebhook(null);
    const first = await deliver(webhook.token, '{"n": 1}', headers);
    const again = await deliver(webhook.token, '{"n": 2}', headers);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ node_id: first.body.node_id, edge_id: first.body.edge_id, duplicate: true });
    expect(await contentNodesOf(webhook.id)).toBe(1);
    const log = (await deliveries(webhook.id)).body.deliveries;
    expect(log.map((d: { duplicate: boolean; node_id: string }) => [d.duplicate, d.node_id])).toEqual([
      [true, first.body.node_id],
      [false, first.body.node_id],
    ]);
  });

  it("Slack's event_id in the body makes a retried event a duplicate", async () => {
    const webhook = await ctx.addWebhook('chat-message');
    const first = await deliver(webhook.token, SLACK_MESSAGE, { 'X-Slack-Retry-Num': '0' });
    const retry = await deliver(webhook.token, SLACK_MESSAGE, { 'X-Slack-Retry-Num': '1', 'X-Slack-Retry-Reason': 'http_timeout' });
    expect(retry.body).toMatchObject({ node_id: first.body.node_id, edge_id: first.body.edge_id });
    expect(await contentNodesOf(webhook.id)).toBe(1);
    expect((await deliveries(webhook.id)).body.deliveries[0]).toMatchObject({ delivery_id: 'Ev079SP4TP1P', duplicate: true });
  });

  it('a race of 8 parallel copies of one delivery stores one node, and all 8 answer with its ids', async () => {
    const webhook = await ctx.addWebhook('forge-push');
    const headers = { 'X-GitHub-Event': 'push', 'X-GitHub-Delivery': 'race-0000-0000-0000-000000000008' };
    const answers = await Promise.all(Array.from({ length: 8 }, () => deliver(webhook.token, GITHUB_PUSH, headers)));
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200));
    const ids = new Set(answers.map((a) => `${a.body.node_id}/${a.body.edge_id}`));
    expect(ids.size).toBe(1);
    expect(await contentNodesOf(webhook.id)).toBe(1);
    expect(answers.filter((a) => a.body.duplicate === true)).toHaveLength(7);
    const log = (await deliveries(webhook.id)).body.deliveries as Array<{ duplicate: boolean }>;
    expect(log.filter((d) => d.duplicate)).toHaveLength(7);
    expect(log).toHaveLength(8);
  });

  it('a delivery id seen more than 24 hours ago is a new delivery; another webhook’s id is not a duplicate', async () => {
    const webhook = await ctx.addWebhook(null);
    const other = await ctx.addWebhook(null);
    const headers = { 'X-GitHub-Delivery': 'old-delivery' };
    const first = await deliver(webhook.token, '{}', headers);
    await ctx.database.db
      .updateTable('webhook_delivery_ids')
      .set({ claimed_at: sql`now() - interval '25 hours'` })
      .where('webhook_id', '=', webhook.id)
      .execute();
    const later = await deliver(webhook.token, '{}', headers);
    expect(later.body.node_id).not.toBe(first.body.node_id);
    expect(later.body.duplicate).toBeUndefined();
    const elsewhere = await deliver(other.token, '{}', headers);
    expect(elsewhere.body.duplicate).toBeUndefined();
    expect(await contentNodesOf(webhook.id)).toBe(2);
  });
});

describe('delivery ids under a signing scheme (issue 22, finding 11)', () => {
  const standardSecret = `whsec_${randomBytes(24).toString('base64')}`;
  const body = '{"type":"invoice.paid","data":{"id":"inv_2"}}';
  const signedHeaders = (id: string) => {
    const at = new Date();
    return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': new Webhook(standardSecret).sign(id, at, body) };
  };

  it('a captured standard-webhooks request replayed with an added X-GitHub-Delivery is answered as a duplicate and not stored again', async () => {
    const webhook = await ctx.addWebhook(null);
    expect((await setSecret(webhook.id, 'standard-webhooks', standardSecret)).status).toBe(200);
    const captured = signedHeaders('msg_captured');
    const first = await deliver(webhook.token, body, captured);
    expect(first.status).toBe(200);
    const additions: Array<Record<string, string>> = [{ 'X-GitHub-Delivery': 'fresh-1' }, { 'X-Gitea-Delivery': 'fresh-2', 'X-Gitlab-Event-UUID': 'fresh-3' }];
    for (const added of additions) {
      const replay = await deliver(webhook.token, body, { ...captured, ...added });
      expect(replay.status).toBe(200);
      expect(replay.body).toEqual({ node_id: first.body.node_id, edge_id: first.body.edge_id, duplicate: true });
    }
    expect(await contentNodesOf(webhook.id)).toBe(1);
    const log = (await deliveries(webhook.id)).body.deliveries as Array<{ delivery_id: string; duplicate: boolean }>;
    expect(log.map((d) => [d.delivery_id, d.duplicate])).toEqual([
      ['msg_captured', true],
      ['msg_captured', true],
      ['msg_captured', false],
    ]);
  });

  it('github: only X-GitHub-Delivery counts; an added webhook-id does not make a redelivery new', async () => {
    const webhook = await ctx.addWebhook(null);
    await setSecret(webhook.id, 'github', 'gh-secret');
    const signature = `sha256=${createHmac('sha256', 'gh-secret').update('{}').digest('hex')}`;
    const headers = { 'X-Hub-Signature-256': signature, 'X-GitHub-Delivery': 'gh-delivery-1' };
    const first = await deliver(webhook.token, '{}', headers);
    const again = await deliver(webhook.token, '{}', { ...headers, 'webhook-id': 'msg_other' });
    expect(again.body).toEqual({ node_id: first.body.node_id, edge_id: first.body.edge_id, duplicate: true });
    expect(await contentNodesOf(webhook.id)).toBe(1);
  });

  it('a 201-character delivery id answers 400 naming it and stores nothing: in a header, in webhook-id, in Slack’s event_id', async () => {
    const long = 'd'.repeat(201);
    const plain = await ctx.addWebhook(null);
    const header = await deliver(plain.token, '{}', { 'X-GitHub-Delivery': long });
    expect(header.status).toBe(400);
    expect(header.body).toEqual({ error: 'Ugyldig forespørsel: x-github-delivery: leverings-id-en kan være høyst 200 tegn' });
    const slackId = await deliver(plain.token, JSON.stringify({ type: 'event_callback', event_id: long }));
    expect(slackId.status).toBe(400);
    expect(slackId.body).toEqual({ error: 'Ugyldig forespørsel: event_id: leverings-id-en kan være høyst 200 tegn' });
    // 200 characters are still taken.
    expect((await deliver(plain.token, '{}', { 'X-GitHub-Delivery': 'd'.repeat(200) })).status).toBe(200);
    expect(await contentNodesOf(plain.id)).toBe(1);

    const signed = await ctx.addWebhook(null);
    await setSecret(signed.id, 'standard-webhooks', standardSecret);
    const res = await deliver(signed.token, body, signedHeaders(`msg_${long}`));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Ugyldig forespørsel: webhook-id: leverings-id-en kan være høyst 200 tegn' });
    expect(await contentNodesOf(signed.id)).toBe(0);
  });
});
