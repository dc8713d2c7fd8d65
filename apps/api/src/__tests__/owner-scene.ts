import { afterAll, beforeAll } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { setupTestContext, type TestContext } from './helpers.js';

// The scene of the intention and orchestration tests: a test database with its collection, the
// app over it, and the collection owner's Authorization header.

export let ctx: TestContext;
export let app: Express;
export let owner: string;

/** Builds the scene in a database of the calling test file's own, and closes it after. */
export function setupOwnerScene(): void {
  beforeAll(async () => {
    ctx = await setupTestContext();
    app = ctx.app();
    owner = await ctx.ownerAuthorization();
  });
  afterAll(() => ctx.close());
}

/** POSTs a JSON body with the given Authorization header. */
export function post(path: string, authorization: string, body: unknown) {
  return request(app).post(path).set('Authorization', authorization).send(body as object);
}
