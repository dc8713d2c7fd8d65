import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { PostgresIntakeStore } from '@inntak/postgres/intake';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await setupTestContext();
});
afterAll(() => ctx.close());

describe('slow request logging', () => {
  it('logs a request over 200 ms at warning with tag slow_request and its duration, token redacted', async () => {
    const webhook = await ctx.addWebhook();
    const real = new PostgresIntakeStore(ctx.database);
    // A store that answers slowly: the only way to make a real request slow on purpose.
    const slow = {
      findWebhookByToken: async (token: string) => {
        await new Promise((resolve) => setTimeout(resolve, 250));
        return real.findWebhookByToken(token);
      },
      writeContent: real.writeContent.bind(real),
    };
    const res = await request(ctx.app({ intakeStore: slow })).post(`/api/webhook/${webhook.token}`).send({});
    expect(res.status).toBe(200);
    const entry = ctx.logs.find((e) => e.tag === 'slow_request');
    expect(entry).toMatchObject({ level: 'warn', method: 'POST', path: '/api/webhook/:token', status: 200 });
    expect(entry!.duration_ms).toBeGreaterThanOrEqual(200);
  });

  it('does not log a fast request as slow', async () => {
    const before = ctx.logs.filter((e) => e.tag === 'slow_request').length;
    await request(ctx.app()).get('/health');
    expect(ctx.logs.filter((e) => e.tag === 'slow_request')).toHaveLength(before);
  });
});
