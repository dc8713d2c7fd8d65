import { afterAll, beforeAll, expect } from '@jest/globals';
import { readFileSync } from 'node:fs';
import request from 'supertest';
import type { Express } from 'express';
import { sql } from 'kysely';
import { setupTestContext, type TestContext } from './helpers.js';

// The scene of the delivery tests (issue 17): an owner, a member, a stranger and a system
// administrator over one collection, an app with a 64 KB body limit, and the requests they make.

const FIXTURES = new URL('../../../../packages/templates/fixtures/', import.meta.url);
const fixture = (path: string) => readFileSync(new URL(path, FIXTURES));
export const GITHUB_PUSH = fixture('forge-push/github-push-one_commit.json');
export const GITEA_PUSH = fixture('forge-push/gitea-push-several_commits.json');
export const GITLAB_PUSH = fixture('forge-push/gitlab-push-several_commits.json');
export const SLACK_MESSAGE = fixture('chat-message/slack-event_callback-message_plain.json');

export let ctx: TestContext;
export let app: Express;
export let owner: string;
export let member: { id: string; authorization: string };
export let stranger: { id: string; authorization: string };
export let sysadmin: { id: string; authorization: string };

/** Builds the scene in a database of the calling test file's own, and closes it after. */
export function setupDeliveriesScene(): void {
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
}

/** POSTs the bytes as they are (supertest would turn a Buffer into JSON of its own). */
export function deliver(token: string, body: Buffer | string, headers: Record<string, string> = {}, to: Express = app) {
  return request(to)
    .post(`/api/webhook/${token}`)
    .set({ 'Content-Type': 'application/json', ...headers })
    .send(body.toString());
}

export async function deliveries(webhookId: string, query = '', authorization = owner) {
  // A failure is logged once its answer has gone: give that write a moment.
  await new Promise((resolve) => setTimeout(resolve, 50));
  return request(app).get(`/admin/webhooks/${webhookId}/deliveries${query}`).set('Authorization', authorization);
}

export async function contentNodesOf(webhookId: string): Promise<number> {
  const rows = await ctx.database.db.selectFrom('nodes').select('id').where(sql`metadata ->> 'webhook_id'`, '=', webhookId).execute();
  return rows.length;
}

export async function setSecret(webhookId: string, scheme: string, secret: string | null, authorization = owner) {
  return request(app).post('/intentions/set_webhook_secret').set('Authorization', authorization).send({ webhook_id: webhookId, scheme, secret });
}
