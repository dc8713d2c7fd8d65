import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { uuidv7 } from '@inntak/core';
import type { NodeQuery, Visibility } from '@inntak/graph';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';
import { queryNodes, type QueryOptions } from './node-query.js';
import { createCollection, createPerson } from '@inntak/access';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
let h: OpenTestDatabase;
let owner: string;
let reader: string;

beforeAll(async () => {
  h = await openTestDatabase(quiet);
  owner = (await createPerson(storesOn(h.db).graph, { subject: 'owner' })).id;
  reader = (await createPerson(storesOn(h.db).graph, { subject: 'reader' })).id;
});
afterAll(async () => {
  await h.dispose();
});

async function node(title: string, content: string, visibility: Visibility): Promise<string> {
  const id = uuidv7();
  await h.db.insertInto('nodes').values({ id, node_kind: 'content', title, content, visibility, metadata: '{}', created_by: owner }).execute();
  return id;
}

async function member(collection: string, title: string, content: string, visibility: Visibility, creator = owner): Promise<string> {
  const id = uuidv7();
  await h.db.insertInto('nodes').values({ id, node_kind: 'content', title, content, visibility, metadata: '{}', created_by: creator }).execute();
  await h.db.insertInto('edges').values({ id: uuidv7(), source_id: id, target_id: collection, edge_type: 'belongs_to', metadata: '{}', created_by: null }).execute();
  return id;
}

async function all(callerId: string, query: NodeQuery, options: QueryOptions): Promise<string[]> {
  const seen: string[] = [];
  let after: NodeQuery['after'];
  for (let page = 0; page < 100; page++) {
    const result = await queryNodes(h.db, callerId, { ...query, after }, options);
    seen.push(...result.rows.map((r) => r.node.id));
    after = result.next;
    if (!after) break;
  }
  return seen;
}

describe('search windows', () => {
  it('ranks the newest matches together, then the next older window: a window is newer than the one after it', async () => {
    // Titles make the older nodes rank higher, so rank order alone would put them first.
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(await node(i < 3 ? 'vindu vindu vindu' : 'vindu', 'tekst', 'open'));
    for (const strategy of ['walk', 'bitmap'] as const) {
      const seen = await all(reader, { text: 'vindu', limit: 2 }, { searchWindow: 3, searchStrategy: strategy });
      const newestFirst = [...ids].reverse();
      // Windows of 3: the 3 newest, the 3 before them, the oldest; inside a window, by rank.
      expect(new Set(seen.slice(0, 3))).toEqual(new Set(newestFirst.slice(0, 3)));
      expect(new Set(seen.slice(3, 6))).toEqual(new Set(newestFirst.slice(3, 6)));
      expect(seen.slice(6)).toEqual(newestFirst.slice(6));
      // The window of nodes 1–3 ranks its two title-heavy nodes (1, 2) above node 3.
      expect(seen.slice(3, 5).sort()).toEqual([ids[1]!, ids[2]!].sort());
    }
  });

  it('a node written after the first page does not shift the window its cursor points into', async () => {
    for (let i = 0; i < 4; i++) await node('skift', '', 'open');
    const first = await queryNodes(h.db, reader, { text: 'skift', limit: 2 }, { searchWindow: 4 });
    await node('skift skift skift', '', 'open');
    const second = await queryNodes(h.db, reader, { text: 'skift', limit: 2, after: first.next }, { searchWindow: 4 });
    const ids = [...first.rows, ...second.rows].map((r) => r.node.id);
    expect(new Set(ids).size).toBe(4);
    // A full window may have older matches below it, so the cursor goes on; here none follow.
    const third = await queryNodes(h.db, reader, { text: 'skift', limit: 2, after: second.next }, { searchWindow: 4 });
    expect(third.rows).toEqual([]);
    expect(third.next).toBeUndefined();
  });
});

describe('the read filter beside the search documents', () => {
  it('a change of visibility and a new or revoked access row change what a search finds', async () => {
    const id = await node('synlighet', 'innhold', 'hidden');
    const found = async () => {
      const out: Record<string, boolean> = {};
      for (const strategy of ['walk', 'bitmap'] as const) {
        out[strategy] = (await all(reader, { text: 'synlighet', limit: 10 }, { searchStrategy: strategy })).includes(id);
      }
      return out;
    };
    expect(await found()).toEqual({ walk: false, bitmap: false });
    await sql`update nodes set visibility = 'open' where id = ${id}`.execute(h.db);
    expect(await found()).toEqual({ walk: true, bitmap: true });
    await sql`update nodes set visibility = 'hidden' where id = ${id}`.execute(h.db);
    await h.db.insertInto('node_access').values({ subject_id: reader, object_id: id, access: 'reader', via_edge: null }).execute();
    expect(await found()).toEqual({ walk: true, bitmap: true });
    await sql`delete from node_access where subject_id = ${reader} and object_id = ${id}`.execute(h.db);
    expect(await found()).toEqual({ walk: false, bitmap: false });
  });

  it('access rows added or removed for more than 1,000 nodes in one statement change what a search finds for each of them', async () => {
    // Migration 041 probes node_search by key per node up to 1,000 nodes and updates set-wise
    // beyond: both ends of that limit, in one statement each.
    for (const count of [1000, 1001]) {
      const word = `mengde${count}`;
      const ids = (
        await sql<{ id: string }>`insert into nodes (id, node_kind, title, content, visibility, metadata, created_by)
          select gen_random_uuid(), 'content', ${word}, null, 'hidden', '{}', ${owner}::uuid from generate_series(1, ${count}) returning id`.execute(h.db)
      ).rows.map((r) => r.id);
      const found = async () =>
        Number((await sql<{ n: string }>`select count(*) as n from node_search where node_id = any(${ids}::uuid[]) and readers @@ ${reader.replaceAll('-', '')}::tsquery`.execute(h.db)).rows[0]!.n);
      expect(await found()).toBe(0);
      await sql`insert into node_access (subject_id, object_id, access, via_edge) select ${reader}::uuid, unnest(${ids}::uuid[]), 'reader', null`.execute(h.db);
      expect(await found()).toBe(count);
      const hits = await all(reader, { text: word, limit: 100 }, { searchStrategy: 'bitmap' });
      expect(hits).toHaveLength(count);
      await sql`delete from node_access where subject_id = ${reader} and object_id = any(${ids}::uuid[])`.execute(h.db);
      expect(await found()).toBe(0);
    }
  });

  it('a node and its access rows written in one transaction are searchable once it commits, with its final title', async () => {
    const id = uuidv7();
    await h.db.transaction().execute(async (trx) => {
      await trx.insertInto('nodes').values({ id, node_kind: 'content', title: 'utkast', content: null, visibility: 'hidden', metadata: '{}', created_by: owner }).execute();
      await trx.insertInto('node_access').values({ subject_id: reader, object_id: id, access: 'reader', via_edge: null }).execute();
      await sql`update nodes set title = 'ferdig' where id = ${id}`.execute(trx);
    });
    const row = await sql<{ readers: string; title: string }>`select readers::text, title_document::text as title from node_search where node_id = ${id}`.execute(h.db);
    expect(row.rows[0]).toEqual({ readers: `'${reader.replaceAll('-', '')}'`, title: `'ferdig':1A` });
    expect((await queryNodes(h.db, reader, { text: 'ferdig', limit: 5 })).rows.map((r) => r.node.id)).toEqual([id]);
  });
});

describe('a search in a collection', () => {
  it("walks the collection's members newest first in spans, each match once (also a node in it by two edges), found in its whole text or, seen as a summary, by its title", async () => {
    const collection = (await createCollection(storesOn(h.db).graph, { title: 'samling', ownerId: owner })).id;
    const granted = await member(collection, 'annet', 'felles ord', 'hidden');
    await h.db.insertInto('node_access').values({ subject_id: reader, object_id: granted, access: 'reader', via_edge: null }).execute();
    const own = await member(collection, 'annet', 'felles', 'hidden', reader);
    const open = await member(collection, 'felles', 'tekst', 'open');
    const byTitle = await member(collection, 'felles', 'tekst', 'discoverable');
    await member(collection, 'annet', 'felles', 'discoverable'); // the word only in its body: not found
    await member(collection, 'felles', 'felles', 'hidden'); // no access row: not found
    // A second belongs_to edge to the same collection: still found once.
    await h.db.insertInto('edges').values({ id: uuidv7(), source_id: open, target_id: collection, edge_type: 'belongs_to', metadata: '{}', created_by: null }).execute();
    await node('felles', 'utenfor samlingen', 'open'); // not a member
    const expected = [granted, own, open, byTitle].sort();
    for (const searchSpan of [2, undefined]) {
      for (const strategy of ['walk', 'bitmap'] as const) {
        for (const [searchWindow, limit] of [[1, 2], [2, 2], [undefined, 2], [undefined, 10]] as const) {
          const seen = await all(reader, { text: 'felles', collectionId: collection, limit }, { searchStrategy: strategy, searchSpan, searchWindow });
          expect([strategy, searchSpan, searchWindow, limit, [...seen].sort()]).toEqual([strategy, searchSpan, searchWindow, limit, expected]);
        }
      }
    }
  });
});
