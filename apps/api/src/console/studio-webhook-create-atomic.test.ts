import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Express } from 'express';
import type { InspectorStore } from '@inntak/intake';
import { PostgresDeliveriesStore } from '@inntak/postgres/deliveries';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { logIn, postForm, studioApp, type Browser } from '../__tests__/studio-scene.js';

// Every write that must be atomic is one transaction: a webhook made with a signing scheme must
// never be left behind unsigned (it would take unsigned deliveries). Found by the red team: the
// console's form made the webhook and set its secret in two transactions.
let ctx: TestContext;
let app: Express;
let owner: Browser;

beforeAll(async () => {
  ctx = await setupTestContext();
  const real: InspectorStore = new PostgresDeliveriesStore(ctx.database.db);
  // The secret's write fails (a lost connection, a statement timeout): inside whatever transaction it runs in.
  const failing: InspectorStore = {
    transaction: (work) =>
      real.transaction((tx) =>
        work(
          new Proxy(tx, {
            get: (target, name, receiver) =>
              name === 'setWebhookSecret' ? () => Promise.reject(new Error('tilkoblingen brøt')) : (Reflect.get(target, name, receiver) as unknown),
          }),
        ),
      ),
  };
  app = studioApp(ctx, {}, { deliveries: failing });
  owner = await logIn(app, 'owner-subject');
});
afterAll(() => ctx.close());

describe('creating a signed webhook in the console', () => {
  it('a webhook made with a signing scheme is made with its secret or not at all: when the secret cannot be written, no webhook is left', async () => {
    const res = await postForm(app, owner, '/studio/webhooks/ny', { title: 'Signert', collection_id: ctx.collectionId, template_id: '', scheme: 'github', secret: 'en-lang-nok-hemmelighet' });
    expect(res.status).toBe(500);
    expect(await ctx.database.db.selectFrom('nodes').select('id').where('node_kind', '=', 'webhook').execute()).toEqual([]);
  });
});
