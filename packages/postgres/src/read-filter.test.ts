import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from '@inntak/core';
import { createCollection, createPerson } from './graph-writes.js';
import { createWebhook } from './webhook-admin.js';
import { openDatabase, type DatabaseHandle } from './database.js';
import { createTestDatabase, type TestDatabase } from './test-database.js';
import { edgeVisibleTo, nodeVisibleTo } from './read-filter.js';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
let testDb: TestDatabase;
let h: DatabaseHandle;
let owner: string, stranger: string, collection: string, webhook: { id: string; edgeId: string };
const nodes: Record<string, string> = {};

beforeAll(async () => {
  testDb = await createTestDatabase();
  h = openDatabase({ connectionString: testDb.url, logger: quiet });
  owner = (await createPerson(h.db, { subject: 'o' })).id;
  stranger = (await createPerson(h.db, { subject: 's' })).id;
  collection = (await createCollection(h.db, { title: 'C', ownerId: owner })).id;
  webhook = await createWebhook(h.db, { collectionId: collection, createdBy: owner });
  for (const visibility of ['hidden', 'discoverable', 'readable', 'open'] as const) {
    nodes[visibility] = uuidv7();
    await h.db
      .insertInto('nodes')
      .values({ id: nodes[visibility], node_kind: 'content', title: visibility, content: null, visibility, metadata: '{}', created_by: owner })
      .execute();
  }
});
afterAll(async () => {
  await h.close();
  await testDb.drop();
});

async function visibleNodes(caller: string): Promise<string[]> {
  const rows = await h.db.selectFrom('nodes as n').select('n.title').where(nodeVisibleTo(caller, 'n')).where('n.node_kind', '=', 'content').execute();
  return rows.map((r) => r.title!).sort();
}

describe('read filter', () => {
  it('a creator sees every node they created, whatever its visibility', async () => {
    expect(await visibleNodes(owner)).toEqual(['discoverable', 'hidden', 'open', 'readable']);
  });

  it('a stranger sees every node but the hidden one', async () => {
    expect(await visibleNodes(stranger)).toEqual(['discoverable', 'open', 'readable']);
  });

  it('an access-matrix row reveals a hidden node to its subject', async () => {
    const ids = await h.db.selectFrom('nodes as n').select('n.id').where(nodeVisibleTo(owner, 'n')).where('n.id', '=', webhook.id).execute();
    expect(ids).toHaveLength(1);
  });

  it('a system edge is hidden from a caller without access to an endpoint, shown to one with access', async () => {
    await h.db.updateTable('edges').set({ system: true }).where('id', '=', webhook.edgeId).execute();
    const visible = (caller: string) =>
      h.db.selectFrom('edges as e').select('e.id').where(edgeVisibleTo(caller, 'e')).where('e.id', '=', webhook.edgeId).execute();
    expect(await visible(stranger)).toEqual([]);
    expect(await visible(owner)).toEqual([{ id: webhook.edgeId }]);
  });
});
