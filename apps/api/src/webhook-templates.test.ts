import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import request from 'supertest';
import { sql } from 'kysely';
import type { Express } from 'express';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';

// Real payloads kept in packages/templates/fixtures.
const FIXTURES = new URL('../../../packages/templates/fixtures/', import.meta.url);

function payloadOf(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as Record<string, unknown>;
}

let ctx: TestContext;
let app: Express;
const tokens: Record<string, string> = {};
const TEMPLATE_IDS = ['forge-push', 'forge-issues', 'forge-pull-request', 'chat-message', 'ci-build'];

beforeAll(async () => {
  ctx = await setupTestContext();
  app = ctx.app();
  for (const id of TEMPLATE_IDS) tokens[id] = (await ctx.addWebhook(id)).token;
});
afterAll(() => ctx.close());

function node(id: string) {
  return ctx.database.db.selectFrom('nodes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}

describe('POST /api/webhook/{token} with payload templates', () => {
  it('renders a GitHub push with its event header into the stored node', async () => {
    const payload = payloadOf('forge-push/github-push-many_commits.json');
    const res = await request(app).post(`/api/webhook/${tokens['forge-push']}`).set('X-GitHub-Event', 'push').send(payload);
    expect(res.status).toBe(200);
    const created = await node(res.body.node_id);
    expect(created.title).toBe('[baxterthehacker/public-repo] baxterthehacker dyttet 50 commits til changes');
    // A webhook without a locale writes Norwegian (docs/templates.md#language).
    expect(created.content).toContain('… og 30 commits til');
    expect(created.metadata).toMatchObject({
      source: 'webhook',
      webhook_id: expect.any(String),
      payload,
      template: 'forge-push',
      template_version: 3,
      sender: 'github',
      event: 'push',
      branch: 'changes',
      commit_count: 50,
    });
  });

  it("writes in the webhook's locale: English for metadata.locale en, the commit messages as sent either way", async () => {
    const english = await ctx.addWebhook('forge-push');
    await ctx.database.db
      .updateTable('nodes')
      .set({ metadata: sql`metadata || '{"locale":"en"}'::jsonb` })
      .where('id', '=', english.id)
      .execute();
    const payload = payloadOf('forge-push/github-push-one_commit.json');
    const res = await request(app).post(`/api/webhook/${english.token}`).set('X-GitHub-Event', 'push').send(payload);
    const created = await node(res.body.node_id);
    expect(created.title).toBe('[Codertocat/Hello-World] Codertocat pushed 1 commit to master');
    expect(created.content).toContain('- **Branch:** `master`');
    expect(created.content).toContain(') Update README (Codertocat)');
    expect(created.metadata).toMatchObject({ locale: 'en' });
  });

  it('says "merged" only for a merged merge request', async () => {
    const merged = await request(app)
      .post(`/api/webhook/${tokens['forge-pull-request']}`)
      .set('X-Gitlab-Event', 'Merge Request Hook')
      .send(payloadOf('forge-pull-request/gitlab-merge_request-merged.json'));
    const closed = await request(app)
      .post(`/api/webhook/${tokens['forge-pull-request']}`)
      .set('X-Gitlab-Event', 'Merge Request Hook')
      .send(payloadOf('forge-pull-request/gitlab-merge_request-closed.json'));
    expect((await node(merged.body.node_id)).metadata).toMatchObject({ merge_status: 'merged', number: 1 });
    const closedNode = await node(closed.body.node_id);
    expect(closedNode.title).toBe('[gitlab-org/hello-world] sytses lukket merge request !1 uten å slå sammen: update readme (feature → master)');
    expect(closedNode.metadata).toMatchObject({ merge_status: 'closed' });
  });

  it('renders a Travis CI build delivered form-encoded in a payload field', async () => {
    const payload = payloadOf('ci-build/travis-build-passed.json');
    const res = await request(app)
      .post(`/api/webhook/${tokens['ci-build']}`)
      .type('form')
      .send({ payload: JSON.stringify(payload) });
    expect(res.status).toBe(200);
    const created = await node(res.body.node_id);
    expect(created.title).toBe('[hl7-fhir/fhir-svn] Travis CI #4601 lyktes (Passed) på master');
    expect(created.metadata).toMatchObject({ sender: 'travis', status: 'succeeded', build_number: '4601', payload });
  });

  it("answers Slack's url_verification with its challenge and still creates node and edge", async () => {
    const payload = payloadOf('chat-message/slack-url_verification-challenge.json');
    const res = await request(app).post(`/api/webhook/${tokens['chat-message']}`).send(payload);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ challenge: payload.challenge, node_id: expect.any(String), edge_id: expect.any(String) });
    const created = await node(res.body.node_id);
    expect(created.title).toBe('Slack URL verification handshake');
    expect(created.content).not.toContain(payload.token as string);
    const edge = await ctx.database.db.selectFrom('edges').selectAll().where('id', '=', res.body.edge_id).executeTakeFirstOrThrow();
    expect(edge).toMatchObject({ source_id: res.body.node_id, edge_type: 'belongs_to', system: true });
  });

  it('keeps metadata.source "webhook" whatever the sender', async () => {
    const res = await request(app).post(`/api/webhook/${tokens['chat-message']}`).send(payloadOf('chat-message/slack-event_callback-message_user_mentions.json'));
    const created = await node(res.body.node_id);
    expect(created.title).toBe(
      '[Slack #C06NRA6JLER] U06NU4E26M9: @U074VRHQ11T @U074G5E1ANR @U06NU4E26M9 hello, this is a message with mentions',
    );
    expect(created.metadata).toMatchObject({ source: 'webhook', sender: 'slack', channel: 'C06NRA6JLER' });
  });

  it('an unsupported event of a known sender answers 200 with a generic title and is logged at info', async () => {
    const res = await request(app)
      .post(`/api/webhook/${tokens['forge-push']}`)
      .set('X-GitHub-Event', 'star')
      .send({ action: 'created', repository: { full_name: 'o/r' }, sender: { login: 'alice' } });
    expect(res.status).toBe(200);
    expect((await node(res.body.node_id)).title).toBe('[o/r] GitHub event `star` (created) by alice');
    expect(ctx.logs).toContainEqual(expect.objectContaining({ level: 'info', template_id: 'forge-push', event: 'star' }));
  });
});

describe('no payload shape makes a template answer 500', () => {
  const headers = fc.record(
    {
      'X-GitHub-Event': fc.constantFrom('push', 'issues', 'pull_request', 'workflow_run', 'star'),
      'X-Gitlab-Event': fc.constantFrom('Push Hook', 'Merge Request Hook', 'Pipeline Hook'),
      'X-Event-Key': fc.constantFrom('repo:push', 'pullrequest:created', 'issue:updated'),
    },
    { requiredKeys: [] },
  );

  it.each(TEMPLATE_IDS)('%s: arbitrary JSON bodies always get 200', async (templateId) => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 5 }), headers, async (payload, extra) => {
        const res = await request(app)
          .post(`/api/webhook/${tokens[templateId]}`)
          .set({ ...extra, 'Content-Type': 'application/json' })
          .send(JSON.stringify(payload));
        expect(res.status).toBe(200);
      }),
      { numRuns: 40 },
    );
  });
});
