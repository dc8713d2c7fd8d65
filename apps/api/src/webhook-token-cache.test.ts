import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import type { ApiServer } from './api-server.js';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';
import { startApiInstance } from './__tests__/realtime-helpers.js';

// Issue 40: an API without the intake spool (SPOOL_DIR=off) answers a known token from memory
// too, kept current by its change stream; the spool's side is webhook-intake-outage.test.ts.

let ctx: TestContext;
let api: ApiServer;

beforeAll(async () => {
  ctx = await setupTestContext();
  api = await startApiInstance(ctx, {}, { metricsToken: 'metrics-token-for-the-cache-test' });
});
afterAll(async () => {
  await api?.close();
  await ctx?.close();
});

const post = (token: string, n: number) =>
  fetch(`${api.url}/api/webhook/${token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: `n ${n}`, n }) });

const tokenLookups = async () => {
  const res = await fetch(`${api.url}/metrics?format=json`, { headers: { authorization: 'Bearer metrics-token-for-the-cache-test' } });
  return ((await res.json()) as { token_lookups: { memory: number; database: number } }).token_lookups;
};

describe('the webhook token without a spool', () => {
  it("is answered from memory once the database found it, and refused within the change stream's delay once rotated away", async () => {
    const webhook = await ctx.addWebhook();
    expect((await post(webhook.token, 0)).status).toBe(200);
    const before = await tokenLookups();
    for (let n = 1; n <= 3; n++) expect((await post(webhook.token, n)).status).toBe(200);
    const after = await tokenLookups();
    expect([after.memory - before.memory, after.database - before.database]).toEqual([3, 0]);

    // Rotated by another process (here: SQL): the notice takes the token out of memory.
    await sql`update nodes set metadata = metadata || jsonb_build_object('token', gen_random_uuid()::text) where id = ${webhook.id}`.execute(ctx.database.db);
    let status = 0;
    for (let tries = 0; tries < 100 && status !== 404; tries++) {
      status = (await post(webhook.token, 100 + tries)).status;
      if (status !== 404) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe(404);
    for (let n = 0; n < 3; n++) expect((await post(webhook.token, 200 + n)).status).toBe(404);
  });
});
