import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { uuidv7 } from '@inntak/core';
import { createCollection, createPerson } from '../graph/index.js';
import { PostgresIntakeStore } from './intake-store.js';
import { openTestDatabase, type OpenTestDatabase } from '../testing/index.js';

let h: OpenTestDatabase;
beforeAll(async () => {
  h = await openTestDatabase();
});
afterAll(() => h.dispose());

describe('PostgresIntakeStore', () => {
  it('a propagation that fails in the database rolls back that step alone: node and edge commit, intake sees the error', async () => {
    const owner = await createPerson(h.db, { subject: 'o' });
    const collection = await createCollection(h.db, { title: 'C', ownerId: owner.id });
    const nodeId = uuidv7();
    const edgeId = uuidv7();
    // A real failure inside the propagation statement, for this edge only.
    await sql`create function fail_this_edge() returns trigger language plpgsql as $$
      begin raise exception 'propagation refused for the test'; end $$`.execute(h.db);
    await sql.raw(`create trigger fail_this_edge before insert on node_access for each row
      when (new.via_edge = '${edgeId}') execute function fail_this_edge()`).execute(h.db);

    let thrown: unknown;
    await new PostgresIntakeStore(h.db).transaction(async (tx) => {
      await tx.insertNode({ id: nodeId, node_kind: 'content', title: 't', content: null, visibility: 'hidden', metadata: {}, created_by: null });
      await tx.insertEdge({ id: edgeId, source_id: nodeId, target_id: collection.id, edge_type: 'belongs_to', metadata: {}, system: true, created_by: null });
      await tx.propagateAccess(edgeId).catch((err: unknown) => (thrown = err));
    });

    expect((thrown as Error).message).toBe('propagation refused for the test');
    expect(await h.db.selectFrom('nodes').select('id').where('id', '=', nodeId).execute()).toHaveLength(1);
    expect(await h.db.selectFrom('edges').select('id').where('id', '=', edgeId).execute()).toHaveLength(1);
    expect(await h.db.selectFrom('node_access').select('subject_id').where('object_id', '=', nodeId).execute()).toEqual([]);
  });
});
