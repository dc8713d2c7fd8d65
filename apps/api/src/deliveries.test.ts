import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import type { Express } from 'express';
import { sql } from 'kysely';
import { Webhook } from 'standardwebhooks';
import { pruneDeliveries } from '@inntak/postgres/deliveries';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';

// Issue 17 through HTTP against real PostgreSQL: the delivery log, duplicates, signatures.

const FIXTURES = new URL('../../../packages/templates/fixtures/', import.meta.url);
const fixture = (path: string) => readFileSync(new URL(path, FIXTURES));
const GITHUB_PUSH = fixture('forge-push/github-push-one_commit.json');
const GITEA_PUSH = fixture('forge-push/gitea-push-several_commits.json');
const GITLAB_PUSH = fixture('forge-push/gitlab-push-several_commits.json');
const SLACK_MESSAGE = fixture('chat-message/slack-event_callback-message_plain.json');

let ctx: TestContext;
let app: Express;
let owner: string;
let member: { id: string; authorization: string };
let stranger: { id: string; authorization: string };
let sysadmin: { id: string; authorization: string };

beforeAll(async () => {
  ctx = await setupTestContext();
  app = ctx.app({ bodyLimitBytes: 64 * 1024 });
  owner = await ctx.ownerAuthorization();
  member = await ctx.addPerson('member');
  stranger = await ctx.addPerson('stranger');
  sysadmin = await ctx.addPerson('sysadmin', { admin: true });
  const grant = await request(app)
    .post('/intentions/grant_access')
    .set('Authorization', owner)
    .send({ subject_id: member.id, object_id: ctx.collectionId, access: 'member' });
  expect(grant.status).toBe(200);
});
afterAll(() => ctx.close());

/** POSTs the bytes as they are (supertest would turn a Buffer into JSON of its own). */
function deliver(token: string, body: Buffer | string, headers: Record<string, string> = {}, to: Express = app) {
  return request(to)
    .post(`/api/webhook/${token}`)
    .set({ 'Content-Type': 'application/json', ...headers })
    .send(body.toString());
}

async function deliveries(webhookId: string, query = '', authorization = owner) {
  // A failure is logged once its answer has gone: give that write a moment.
  await new Promise((resolve) => setTimeout(resolve, 50));
  return request(app).get(`/admin/webhooks/${webhookId}/deliveries${query}`).set('Authorization', authorization);
}

async function contentNodesOf(webhookId: string): Promise<number> {
  const rows = await ctx.database.db.selectFrom('nodes').select('id').where(sql`metadata ->> 'webhook_id'`, '=', webhookId).execute();
  return rows.length;
}

async function setSecret(webhookId: string, scheme: string, secret: string | null, authorization = owner) {
  return request(app).post('/intentions/set_webhook_secret').set('Authorization', authorization).send({ webhook_id: webhookId, scheme, secret });
}

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

describe('signatures', () => {
  const hex = (secret: string, data: Buffer | string) => createHmac('sha256', secret).update(data).digest('hex');
  const now = () => Math.floor(Date.now() / 1000);
  const standardSecret = `whsec_${randomBytes(24).toString('base64')}`;

  type Case = { scheme: string; secret: string; body: Buffer; signed: () => Record<string, string>; wrong: () => Record<string, string> };
  const cases: Case[] = [
    {
      scheme: 'github',
      secret: 'It’s a Secret to Everybody',
      body: GITHUB_PUSH,
      signed: () => ({ 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': `sha256=${hex('It’s a Secret to Everybody', GITHUB_PUSH)}` }),
      wrong: () => ({ 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': `sha256=${hex('another secret', GITHUB_PUSH)}` }),
    },
    {
      scheme: 'gitea',
      secret: 'gitea-hook-secret',
      body: GITEA_PUSH,
      signed: () => ({ 'X-Gitea-Event': 'push', 'X-Gitea-Signature': hex('gitea-hook-secret', GITEA_PUSH) }),
      wrong: () => ({ 'X-Gitea-Event': 'push', 'X-Gitea-Signature': hex('gitea-hook-secret', Buffer.concat([GITEA_PUSH, Buffer.from(' ')])) }),
    },
    {
      scheme: 'gitlab',
      secret: 'gitlab-secret-token',
      body: GITLAB_PUSH,
      signed: () => ({ 'X-Gitlab-Event': 'Push Hook', 'X-Gitlab-Token': 'gitlab-secret-token' }),
      wrong: () => ({ 'X-Gitlab-Event': 'Push Hook', 'X-Gitlab-Token': 'gitlab-secret-tokeN' }),
    },
    {
      scheme: 'slack',
      secret: '8f742231b10e8888abcd99yyyzzz85a5',
      body: SLACK_MESSAGE,
      signed: () => {
        const ts = String(now());
        return { 'X-Slack-Request-Timestamp': ts, 'X-Slack-Signature': `v0=${hex('8f742231b10e8888abcd99yyyzzz85a5', `v0:${ts}:${SLACK_MESSAGE.toString()}`)}` };
      },
      wrong: () => {
        const ts = String(now());
        return { 'X-Slack-Request-Timestamp': ts, 'X-Slack-Signature': `v0=${hex('8f742231b10e8888abcd99yyyzzz85a5', `v0:${Number(ts) - 1}:${SLACK_MESSAGE.toString()}`)}` };
      },
    },
    {
      scheme: 'standard-webhooks',
      secret: standardSecret,
      body: Buffer.from('{"type":"invoice.paid","data":{"id":"inv_1"}}'),
      signed: () => {
        const id = `msg_${randomBytes(8).toString('hex')}`;
        const at = new Date();
        const signature = new Webhook(standardSecret).sign(id, at, '{"type":"invoice.paid","data":{"id":"inv_1"}}');
        return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
      },
      wrong: () => {
        const id = `msg_${randomBytes(8).toString('hex')}`;
        const at = new Date();
        const signature = new Webhook(`whsec_${randomBytes(24).toString('base64')}`).sign(id, at, '{"type":"invoice.paid","data":{"id":"inv_1"}}');
        return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
      },
    },
  ];

  it.each(cases.map((c) => [c.scheme, c] as [string, Case]))(
    '%s: a signature computed the sender’s way is stored; a wrong and a missing one answer 401 Ugyldig signatur, store nothing and are logged',
    async (_scheme, c) => {
      const webhook = await ctx.addWebhook(null);
      const set = await setSecret(webhook.id, c.scheme, c.secret);
      expect(set.status).toBe(200);
      expect(set.body).toEqual({ webhook_id: webhook.id, scheme: c.scheme });

      const ok = await deliver(webhook.token, c.body, c.signed());
      expect(ok.status).toBe(200);
      const wrong = await deliver(webhook.token, c.body, c.wrong());
      expect(wrong.status).toBe(401);
      expect(wrong.body).toEqual({ error: 'Ugyldig signatur' });
      const missing = await deliver(webhook.token, c.body);
      expect(missing.status).toBe(401);
      expect(missing.body).toEqual({ error: 'Ugyldig signatur' });
      expect(await contentNodesOf(webhook.id)).toBe(1);

      // The two refusals are counted in one row (two, if a minute turned between them).
      const log = (await deliveries(webhook.id)).body.deliveries as Array<{ status: number; error?: string; count?: number }>;
      expect(log.at(-1)).toMatchObject({ status: 200 });
      const refusals = log.slice(0, -1);
      expect(refusals.every((d) => d.status === 401 && d.error === 'Ugyldig signatur')).toBe(true);
      expect(refusals.reduce((sum, d) => sum + d.count!, 0)).toBe(2);
    },
  );

  it('slack: a signature over a timestamp older than 5 minutes answers 401', async () => {
    const webhook = await ctx.addWebhook('chat-message');
    const secret = 'slack-signing-secret';
    await setSecret(webhook.id, 'slack', secret);
    const stale = String(now() - 6 * 60);
    const res = await deliver(webhook.token, SLACK_MESSAGE, {
      'X-Slack-Request-Timestamp': stale,
      'X-Slack-Signature': `v0=${hex(secret, `v0:${stale}:${SLACK_MESSAGE.toString()}`)}`,
    });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Ugyldig signatur' });
    expect(await contentNodesOf(webhook.id)).toBe(0);
  });

  it('a request without the scheme’s headers is refused before its body is received, and logged', async () => {
    const webhook = await ctx.addWebhook(null);
    await setSecret(webhook.id, 'github', 'early');
    const bigApp = ctx.app();
    const res = await deliver(webhook.token, JSON.stringify({ pad: 'z'.repeat(2 * 1024 * 1024) }), {}, bigApp);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Ugyldig signatur' });
    expect(res.headers.connection).toBe('close');
    const log = (await deliveries(webhook.id)).body.deliveries;
    expect(log).toEqual([expect.objectContaining({ status: 401, error: 'Ugyldig signatur', bytes: 2 * 1024 * 1024 + 10 })]);
  });

  it('is checked over the raw bytes: the same JSON re-serialised does not pass', async () => {
    const webhook = await ctx.addWebhook('forge-push');
    await setSecret(webhook.id, 'github', 's3cret');
    const reserialised = JSON.stringify(JSON.parse(GITHUB_PUSH.toString()));
    expect(reserialised).not.toBe(GITHUB_PUSH.toString());
    const res = await deliver(webhook.token, reserialised, { 'X-GitHub-Event': 'push', 'X-Hub-Signature-256': `sha256=${hex('s3cret', GITHUB_PUSH)}` });
    expect(res.status).toBe(401);
  });

  it('a body over 256 KB with a valid signature is stored', async () => {
    const webhook = await ctx.addWebhook(null);
    const bigApp = ctx.app();
    await setSecret(webhook.id, 'github', 'big-secret');
    const body = Buffer.from(JSON.stringify({ pad: 'y'.repeat(300 * 1024) }));
    const res = await deliver(webhook.token, body, { 'X-Hub-Signature-256': `sha256=${hex('big-secret', body)}` }, bigApp);
    expect(res.status).toBe(200);
    expect(await contentNodesOf(webhook.id)).toBe(1);
  });

  it('the secret is never returned by a read or written to the logs; rotating the token keeps it; none removes it', async () => {
    const webhook = await ctx.addWebhook(null);
    const secret = `very-secret-${randomBytes(8).toString('hex')}`;
    await setSecret(webhook.id, 'github', secret);
    const rotated = await request(app).post('/intentions/rotate_webhook_token').set('Authorization', owner).send({ webhook_id: webhook.id });
    expect(rotated.status).toBe(200);
    expect(rotated.body.signature_scheme).toBe('github');
    const list = await request(app).get('/admin/webhooks').set('Authorization', owner);
    expect(list.body.find((w: { id: string }) => w.id === webhook.id)).toMatchObject({ signature_scheme: 'github' });
    const node = await request(app).get(`/nodes/${webhook.id}`).set('Authorization', owner);
    expect(node.status).toBe(200);
    for (const body of [rotated.body, list.body, node.body]) expect(JSON.stringify(body)).not.toContain(secret);

    // The new token still needs the secret.
    const unsigned = await deliver(rotated.body.token, '{}');
    expect(unsigned.status).toBe(401);
    const signed = await deliver(rotated.body.token, '{}', { 'X-Hub-Signature-256': `sha256=${hex(secret, '{}')}` });
    expect(signed.status).toBe(200);
    expect(JSON.stringify(ctx.logs)).not.toContain(secret);

    const none = await setSecret(webhook.id, 'none', null);
    expect(none.body).toEqual({ webhook_id: webhook.id, scheme: 'none' });
    expect((await deliver(rotated.body.token, '{}')).status).toBe(200);
  });

  it('set_webhook_secret refuses an unknown scheme, a missing secret, an unusable standard-webhooks key; members 403, strangers 404', async () => {
    const webhook = await ctx.addWebhook(null);
    const unknown = await setSecret(webhook.id, 'bitbucket', 'x');
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/scheme/);
    const missing = await setSecret(webhook.id, 'github', null);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('Ugyldig forespørsel: secret: mangler');
    const empty = await setSecret(webhook.id, 'github', '');
    expect(empty.status).toBe(400);
    const badKey = await setSecret(webhook.id, 'standard-webhooks', 'whsec_!!!not base64!!!');
    expect(badKey.status).toBe(400);
    expect(badKey.body.error).toMatch(/^Ugyldig forespørsel: secret: /);
    expect((await setSecret(webhook.id, 'github', 'x', member.authorization)).status).toBe(403);
    expect((await setSecret(webhook.id, 'github', 'x', stranger.authorization)).status).toBe(404);
    // Nothing of that was stored: requests need no signature.
    expect((await deliver(webhook.token, '{}')).status).toBe(200);
  });

  it('deleting the webhook deletes its secret and its delivery log', async () => {
    const webhook = await ctx.addWebhook(null);
    await setSecret(webhook.id, 'gitlab', 'tok');
    await deliver(webhook.token, '{}', { 'X-Gitlab-Token': 'tok' });
    await deliver(webhook.token, '{}', { 'X-Gitlab-Token': 'wrong' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const deleted = await request(app).post('/intentions/delete_webhook').set('Authorization', owner).send({ webhook_id: webhook.id });
    expect(deleted.status).toBe(200);
    const secrets = await ctx.database.db.selectFrom('webhook_secrets').select('webhook_id').where('webhook_id', '=', webhook.id).execute();
    const log = await ctx.database.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', webhook.id).execute();
    const refusals = await ctx.database.db.selectFrom('webhook_refusals').select('id').where('webhook_id', '=', webhook.id).execute();
    expect([secrets, log, refusals]).toEqual([[], [], []]);
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
    expect(rows.every((r) => r.status === 401 && r.error === 'Ugyldig signatur')).toBe(true);
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
    expect(counted[0]).toMatchObject({ error: 'Ugyldig signatur', duplicate: false, last_received_at: expect.any(String) });
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
