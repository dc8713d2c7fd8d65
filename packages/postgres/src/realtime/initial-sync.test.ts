import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { uuidv7 } from '@inntak/core';
import { openDatabase } from '../platform/index.js';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';
import { loadInitialSync } from './initial-sync.js';
import { createCollection, createNode, createPerson, grantAccess } from '@inntak/access';

/**
 * Issue 11, point 3, scaled down: a stranger's empty `readable` collections made everyone's
 * initial_sync walk the whole node index (one backward scan per empty collection), and pushed
 * the caller's own collections out of the first 50.
 */

let h: OpenTestDatabase;
let alice: string;
let own: string;
let shared: string;
const BOUNDS = { collections: 50, nodesPerCollection: 20 };
const NODES = 30_000;

beforeAll(async () => {
  h = await openTestDatabase();
  alice = (await createPerson(storesOn(h.db).graph, { subject: 'alice-3' })).id;
  const bob = (await createPerson(storesOn(h.db).graph, { subject: 'bob-3' })).id;
  const mallory = (await createPerson(storesOn(h.db).graph, { subject: 'mallory-3' })).id;
  own = (await createCollection(storesOn(h.db).graph, { title: 'Alices', ownerId: alice })).id;
  await createNode(storesOn(h.db).graph, { personId: alice, isAdmin: false }, { node_kind: 'content', title: 'egen', collection_id: own });
  shared = (await createCollection(storesOn(h.db).graph, { title: 'Bobs', ownerId: bob })).id;
  await grantAccess(storesOn(h.db).graph, { personId: bob, isAdmin: false }, { subject_id: alice, object_id: shared, access: 'reader' });
  // A big graph nobody here may see: the hidden nodes of someone else's collection.
  const archive = (await createCollection(storesOn(h.db).graph, { title: 'arkiv', ownerId: bob })).id;
  await sql`insert into nodes (id, node_kind, title, visibility, metadata, created_by, created_at)
            select gen_random_uuid(), 'content', 'n' || i, 'hidden', '{}', ${bob}, now() - make_interval(secs => i)
              from generate_series(1, ${NODES}) as i`.execute(h.db);
  await sql`insert into edges (id, source_id, target_id, edge_type, metadata, system, created_by)
            select gen_random_uuid(), n.id, ${archive}, 'belongs_to', '{}', true, null
              from nodes n where n.node_kind = 'content' and n.created_by = ${bob} and n.title like 'n%'`.execute(h.db);
  // Then the stranger's 60 empty readable collections, newer than everything else.
  for (let i = 0; i < 60; i++) {
    await h.db
      .insertInto('nodes')
      .values({ id: uuidv7(), node_kind: 'collection', title: `tom ${i}`, visibility: 'readable', metadata: '{}', created_by: mallory })
      .execute();
  }
  await sql`analyze`.execute(h.db);
}, 120_000);
afterAll(async () => {
  await h.dispose();
});

describe('initial_sync', () => {
  it('lists the caller’s own and member collections before strangers’ readable ones', async () => {
    const sync = await loadInitialSync(h.db, alice, BOUNDS);
    expect(sync.collections).toHaveLength(50);
    expect(sync.collections.slice(0, 2).map((c) => c.collection.id)).toEqual([shared, own]);
    expect(sync.collections.find((c) => c.collection.id === own)!.nodes.map((n) => n.title)).toEqual(['egen']);
    expect(sync.collections.slice(2).every((c) => c.collection.title?.startsWith('tom ') && c.nodes.length === 0)).toBe(true);
  });

  it(`costs index lookups per collection, not a walk over the ${NODES.toLocaleString('en')} other nodes per empty collection`, async () => {
    // Counted, not timed: the rows PostgreSQL read for one sync, from its statistics. One
    // connection, so the counts it flushes are all of the sync's.
    const one = openDatabase({ connectionString: h.url, logger: { error() {}, warn() {}, info() {}, debug() {} }, max: 1 });
    try {
      const rowsRead = async () => {
        await sql`select pg_stat_force_next_flush()`.execute(one.db);
        const { rows } = await sql<{ n: string }>`select sum(seq_tup_read + coalesce(idx_tup_fetch, 0)) as n from pg_stat_user_tables`.execute(one.db);
        return Number(rows[0]!.n);
      };
      const before = await rowsRead();
      await loadInitialSync(one.db, alice, BOUNDS);
      const read = (await rowsRead()) - before;
      // Before the fix each of the 48 empty collections walked all of them (over a million rows).
      expect(read).toBeLessThan(NODES);
    } finally {
      await one.close();
    }
  });
});
