import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uuidv7 } from '@inntak/core';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';
import { sql } from 'kysely';
import { edgeVisibleTo, nodeVisibleTo, visibleNodeParts } from './read-filter.js';
import { createCollection, createPerson, OPERATOR } from '@inntak/access';
import { createWebhook } from '@inntak/intake';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
let h: OpenTestDatabase;
let owner: string, stranger: string, collection: string, webhook: { id: string; edgeId: string };
const nodes: Record<string, string> = {};

beforeAll(async () => {
  h = await openTestDatabase(quiet);
  owner = (await createPerson(storesOn(h.db).graph, { subject: 'o' })).id;
  stranger = (await createPerson(storesOn(h.db).graph, { subject: 's' })).id;
  collection = (await createCollection(storesOn(h.db).graph, { title: 'C', ownerId: owner })).id;
  webhook = await createWebhook(storesOn(h.db).webhookAdmin, OPERATOR, { collectionId: collection, createdBy: owner });
  for (const visibility of ['hidden', 'discoverable', 'readable', 'open'] as const) {
    nodes[visibility] = uuidv7();
    await h.db
      .insertInto('nodes')
      .values({ id: nodes[visibility], node_kind: 'content', title: visibility, content: null, visibility, metadata: '{}', created_by: owner })
      .execute();
  }
});
afterAll(async () => {
  await h.dispose();
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

  it('the three visible parts a listing reads are disjoint and together are exactly what nodeVisibleTo admits', async () => {
    // A hidden node of the stranger's own, and one the stranger reaches through an access row.
    const own = uuidv7();
    await h.db.insertInto('nodes').values({ id: own, node_kind: 'content', title: 'own', content: null, metadata: '{}', created_by: stranger }).execute();
    await h.db.insertInto('node_access').values({ subject_id: stranger, object_id: nodes.hidden!, access: 'reader', via_edge: null }).execute();
    await h.db.insertInto('node_access').values({ subject_id: stranger, object_id: own, access: 'owner', via_edge: null }).execute();
    for (const caller of [owner, stranger, collection]) {
      const whole = await h.db.selectFrom('nodes as n').select('n.id').where(nodeVisibleTo(caller, 'n')).execute();
      const parts = [];
      for (const part of visibleNodeParts(caller, 'n')) {
        const rows = await sql<{ id: string; visibility: string }>`select n.id, n.visibility from ${part.from} where ${part.where}`.execute(h.db);
        for (const row of rows.rows) expect(part.visibilities).toContain(row.visibility);
        parts.push(...rows.rows.map((r) => r.id));
      }
      expect(new Set(parts).size).toBe(parts.length);
      expect(parts.sort()).toEqual(whole.map((r) => r.id).sort());
    }
    await h.db.deleteFrom('node_access').where('subject_id', '=', stranger).execute();
  });
});
