import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { runOnce } from 'graphile-worker';
import { uuidv7 } from '@inntak/core';
import { createCollection, createPerson, createTestDatabase, openDatabase, type DatabaseHandle, type TestDatabase } from '@inntak/postgres';
import { createTaskList } from './task-list.js';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
let testDb: TestDatabase;
let h: DatabaseHandle;
beforeAll(async () => {
  testDb = await createTestDatabase();
  h = openDatabase({ connectionString: testDb.url, logger: quiet });
});
afterAll(async () => {
  await h.close();
  await testDb.drop();
});

describe('access_repair job', () => {
  it("copies the collection's access rows that intake could not, when the worker runs the queued repair", async () => {
    const owner = await createPerson(h.db, { subject: 'o' });
    const collection = await createCollection(h.db, { title: 'C', ownerId: owner.id });
    const nodeId = uuidv7();
    const edgeId = uuidv7();
    await h.db.insertInto('nodes').values({ id: nodeId, node_kind: 'content', title: null, content: null, metadata: '{}', created_by: null }).execute();
    await h.db
      .insertInto('edges')
      .values({ id: edgeId, source_id: nodeId, target_id: collection.id, edge_type: 'belongs_to', metadata: '{}', system: true, created_by: null })
      .execute();
    await sql`select graphile_worker.add_job('access_repair', json_build_object('edge_id', ${edgeId}::text))`.execute(h.db);

    await runOnce({ pgPool: h.pool, taskList: createTaskList(h.db) });

    const rows = await h.db.selectFrom('node_access').selectAll().where('object_id', '=', nodeId).execute();
    expect(rows).toEqual([{ subject_id: owner.id, object_id: nodeId, access: 'owner', via_edge: edgeId }]);
    const left = await sql<{ n: string }>`select count(*) as n from graphile_worker._private_jobs`.execute(h.db);
    expect(Number(left.rows[0]!.n)).toBe(0);
  });
});
