import { describe, expect, it } from '@jest/globals';
import { createHmac, randomBytes } from 'node:crypto';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { app, contentNodesOf, ctx, deliver, deliveries, GITEA_PUSH, GITHUB_PUSH, GITLAB_PUSH, member, owner, setSecret, setupDeliveriesScene, SLACK_MESSAGE, stranger } from '../__tests__/deliveries-scene.js';

// Issue 17 through HTTP against real PostgreSQL: signed deliveries and their secrets.

setupDeliveriesScene();

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

      // The two refusals are logged with their exact reasons: a missing signature and a wrong one are two rows.
      const log = (await deliveries(webhook.id)).body.deliveries as Array<{ status: number; error?: string; count?: number }>;
      expect(log.at(-1)).toMatchObject({ status: 200 });
      const refusals = log.slice(0, -1);
      expect(refusals.every((d) => d.status === 401 && d.error!.startsWith('Ugyldig signatur: '))).toBe(true);
      expect(refusals.reduce((sum, d) => sum + d.count!, 0)).toBe(2);
      expect(new Set(refusals.map((d) => d.error)).size).toBe(2);
      expect(refusals.filter((d) => d.error!.includes('mangler'))).toHaveLength(1);
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
    expect(log).toEqual([expect.objectContaining({ status: 401, error: 'Ugyldig signatur: signaturen mangler (X-Hub-Signature-256)', bytes: 2 * 1024 * 1024 + 10 })]);
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
