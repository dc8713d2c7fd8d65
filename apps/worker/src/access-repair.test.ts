import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { uuidv7 } from '@inntak/core';
import { enqueueJob } from '@inntak/postgres/jobs';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { runGovernedOnce } from './__tests__/run-governed-once.js';
import { createCollection, createPerson } from '@inntak/access';

let h: OpenTestDatabase;
beforeAll(async () => {
  h = await openTestDatabase();
});
afterAll(() => h.dispose());

describe('access_repair job', () => {
  it("copies the collection's access rows that intake could not, when the worker runs the queued repair", async () => {
    const owner = await createPerson(storesOn(h.db).graph, { subject: 'o' });
    const collection = await createCollection(storesOn(h.db).graph, { title: 'C', ownerId: owner.id });
    const nodeId = uuidv7();
    const edgeId = uuidv7();
    await h.db.insertInto('nodes').values({ id: nodeId, node_kind: 'content', title: null, content: null, metadata: '{}', created_by: null }).execute();
    await h.db
      .insertInto('edges')
      .values({ id: edgeId, source_id: nodeId, target_id: collection.id, edge_type: 'belongs_to', metadata: '{}', system: true, created_by: null })
      .execute();
    // One through enqueueJob, one queued around it (plain add_job): both end in the history.
    const historyId = await enqueueJob(h.db, 'access_repair', { edge_id: edgeId });
    await sql`select graphile_worker.add_job('access_repair', json_build_object('edge_id', ${edgeId}::text), flags => array['access_repair'])`.execute(h.db);

    await runGovernedOnce(h);

    const rows = await h.db.selectFrom('node_access').selectAll().where('object_id', '=', nodeId).execute();
    expect(rows).toEqual([{ subject_id: owner.id, object_id: nodeId, access: 'owner', via_edge: edgeId }]);
    const left = await sql<{ n: string }>`select count(*) as n from graphile_worker._private_jobs`.execute(h.db);
    expect(Number(left.rows[0]!.n)).toBe(0);
    const history = await h.db.selectFrom('job_queue').select(['id', 'status', 'attempts']).where('job_type', '=', 'access_repair').orderBy('id').execute();
    expect(history).toEqual([
      { id: String(historyId), status: 'completed', attempts: 1 },
      { id: expect.any(String), status: 'completed', attempts: 1 },
    ]);
  });
});
