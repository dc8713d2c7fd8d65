import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { deliveryInHand, receiveWebhook, createWebhook } from '@inntak/intake';
import { PostgresIntakeStore } from '@inntak/postgres/intake';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { runCli } from './__tests__/run-cli.js';
import { createCollection, createPerson, OPERATOR } from '@inntak/access';

// `inntak webhook replay` run as a user runs it (the build): the same use case as the API's route.
const quiet = { error() {}, warn() {}, info() {}, debug() {} };

let h: OpenTestDatabase;
let collection: string;
beforeAll(async () => {
  h = await openTestDatabase(quiet);
  const owner = (await createPerson(storesOn(h.db).graph, { subject: 'owner' })).id;
  collection = (await createCollection(storesOn(h.db).graph, { title: 'C', ownerId: owner })).id;
});
afterAll(() => h.dispose());

describe('inntak webhook replay', () => {
  it('replays a stored delivery through the current template: a new node, its log row marked as a replay', async () => {
    const webhook = await createWebhook(storesOn(h.db).webhookAdmin, OPERATOR, { collectionId: collection, title: 'Krok' });
    const store = new PostgresIntakeStore(h);
    const first = await receiveWebhook({ store, logger: quiet }, deliveryInHand({ token: webhook.token, body: JSON.stringify({ title: 'Hei' }), headers: { 'x-github-delivery': 'd-1' } }));
    const original = await h.db.selectFrom('webhook_deliveries').select('id').where('node_id', '=', first.node_id).executeTakeFirstOrThrow();
    const env = { ...process.env, DATABASE_URL: h.url, LOG_LEVEL: 'error' };
    const { code, json } = await runCli(['webhook', 'replay', '--webhook', webhook.id, '--delivery', original.id], env, '');
    expect(code).toBe(0);
    expect(json).toMatchObject({ replay_of: original.id, node_id: expect.any(String) });
    expect((json as { node_id: string }).node_id).not.toBe(first.node_id);
    const row = await h.db.selectFrom('webhook_deliveries').select(['replay_of', 'delivery_id']).where('node_id', '=', (json as { node_id: string }).node_id).executeTakeFirstOrThrow();
    expect(row).toEqual({ replay_of: original.id, delivery_id: 'd-1' });
    expect(await runCli(['webhook', 'replay', '--webhook', webhook.id], env, '')).toMatchObject({ code: 2 });
  });
});
