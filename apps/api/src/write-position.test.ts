import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { ReadReplicas } from '@inntak/postgres';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';

// Who learns the primary's WAL position (Inntak-Write-Position, docs/scaling.md): it measures
// the primary's write volume, so only a person's own successful write answers with it
// (docs/security.md, "Fifth attack (issue 35)", finding 6). The routing is the real one over the
// real primary; replicas change nothing of who gets the header, so none is started here.

let ctx: TestContext;
let app: Express;
let replicas: ReadReplicas;

beforeAll(async () => {
  ctx = await setupTestContext();
  replicas = new ReadReplicas({ primary: ctx.database, replicas: [], logger: ctx.logger });
  app = ctx.app({ readRouter: replicas });
});
afterAll(() => ctx.close());

describe('Inntak-Write-Position', () => {
  it('answers an authenticated person’s successful write', async () => {
    const res = await request(app).post('/intentions/create_collection').set('Authorization', await ctx.ownerAuthorization()).send({ title: 'Egen' });
    expect(res.status).toBe(201);
    expect(res.headers['inntak-write-position']).toMatch(/^[0-9A-F]+\/[0-9A-F]+$/);
  });

  it('is never on a webhook intake answer, whatever Authorization header the sender adds', async () => {
    const webhook = await ctx.addWebhook(null);
    for (const authorization of [undefined, 'Bearer hva-som-helst', 'Basic YTpi', await ctx.ownerAuthorization()]) {
      const post = request(app).post(`/api/webhook/${webhook.token}`).send({ title: 'levert' });
      const res = authorization ? await post.set('Authorization', authorization) : await post;
      expect({ authorization, status: res.status, position: res.headers['inntak-write-position'] }).toEqual({ authorization, status: 200, position: undefined });
    }
  });

});
