import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import pg from 'pg';
import { uuidv7 } from '@inntak/core';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';
import { createPerson } from '@inntak/access';

// Migration 030 sends new access rows' change notices from one statement trigger instead of a
// row trigger each: the realtime feed must still get one notice per row, as before.

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
let h: OpenTestDatabase;
let listener: pg.Client;
const notices: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  h = await openTestDatabase(quiet);
  listener = new pg.Client({ connectionString: h.url });
  await listener.connect();
  listener.on('notification', (n) => {
    if (n.channel === 'inntak_access') notices.push(JSON.parse(n.payload!) as Record<string, unknown>);
  });
  await listener.query('listen inntak_access');
});
afterAll(async () => {
  await listener.end();
  await h.dispose();
});

async function noticesAfter(write: () => Promise<unknown>, count: number): Promise<Array<Record<string, unknown>>> {
  notices.length = 0;
  await write();
  for (let i = 0; i < 200 && notices.length < count; i++) await new Promise((r) => setTimeout(r, 10));
  // Every notice carries the time it was sent; the rest is compared.
  return notices.map(({ at, ...rest }) => (typeof at === 'string' ? rest : { at, ...rest }));
}

describe('change notices of access rows', () => {
  it('access rows inserted in one statement send one insert notice each, in the order written, and a changed row an update notice', async () => {
    const owner = (await createPerson(storesOn(h.db).graph, { subject: 'eier' })).id;
    const readers = [(await createPerson(storesOn(h.db).graph, { subject: 'a' })).id, (await createPerson(storesOn(h.db).graph, { subject: 'b' })).id];
    const node = uuidv7();
    await h.db.insertInto('nodes').values({ id: node, node_kind: 'content', title: 't', content: null, visibility: 'hidden', metadata: '{}', created_by: owner }).execute();

    const inserted = await noticesAfter(
      () => h.db.insertInto('node_access').values(readers.map((subject_id) => ({ subject_id, object_id: node, access: 'reader' as const, via_edge: null }))).execute(),
      2,
    );
    expect(inserted).toEqual(readers.map((subject_id) => ({ op: 'insert', subject_id, object_id: node })));

    const updated = await noticesAfter(() => sql`update node_access set access = 'member' where subject_id = ${readers[0]!} and object_id = ${node}`.execute(h.db), 1);
    expect(updated).toEqual([{ op: 'update', subject_id: readers[0], object_id: node }]);
  });
});
