import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await setupTestContext();
});
afterAll(() => ctx.close());

describe('health', () => {
  it('GET /health is public and answers 200', async () => {
    const res = await request(ctx.app()).get('/health');
    expect(res.status).toBe(200);
  });

  it('GET /health/ready answers 200 when the database answers', async () => {
    const res = await request(ctx.app()).get('/health/ready');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', database: 'ok' });
  });

  it('GET /health/ready answers 503 when the database does not', async () => {
    const res = await request(ctx.app({ databaseReady: () => Promise.reject(new Error('down')) })).get('/health/ready');
    expect(res.status).toBe(503);
    expect(res.body.error).toBeTruthy();
  });

  it('unknown paths answer 404 with a JSON error', async () => {
    const res = await request(ctx.app()).get('/nope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Finnes ikke' });
  });
});
