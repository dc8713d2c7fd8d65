import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { AppError, uuidv7 } from '@inntak/core';
import { IntakeWriteError } from '@inntak/intake';
import type { NewEdge, NewNode } from '@inntak/graph';
import { createCollection, createPerson } from '../graph/index.js';
import { PostgresIntakeStore } from './intake-store.js';
import { openTestDatabase, type OpenTestDatabase } from '../testing/index.js';

let h: OpenTestDatabase;
let collectionId: string;
let ownerId: string;
beforeAll(async () => {
  h = await openTestDatabase();
  ownerId = (await createPerson(h.db, { subject: 'o' })).id;
  collectionId = (await createCollection(h.db, { title: 'C', ownerId })).id;
});
afterAll(() => h.dispose());

function content(title: string): { node: NewNode; edge: NewEdge } {
  const node: NewNode = { id: uuidv7(), node_kind: 'content', title, content: null, visibility: 'hidden', metadata: { payload: { a: 1 } }, created_by: null };
  const edge: NewEdge = { id: uuidv7(), source_id: node.id, target_id: collectionId, edge_type: 'belongs_to', metadata: {}, system: true, created_by: null };
  return { node, edge };
}

async function rowsOf(nodeId: string, edgeId: string) {
  return {
    nodes: (await h.db.selectFrom('nodes').select('id').where('id', '=', nodeId).execute()).length,
    edges: (await h.db.selectFrom('edges').select('id').where('id', '=', edgeId).execute()).length,
    access: await h.db.selectFrom('node_access').select(['subject_id', 'access']).where('object_id', '=', nodeId).execute(),
  };
}

/** A real failure inside the database for one table's insert, only for rows of the given node. */
async function refuseInsert(table: 'nodes' | 'edges' | 'node_access', nodeId: string): Promise<void> {
  const column = { nodes: 'id', edges: 'source_id', node_access: 'object_id' }[table];
  await sql.raw(`create function refuse_${table}() returns trigger language plpgsql as $$
    begin raise exception 'refused for the test'; end $$`).execute(h.db);
  await sql.raw(`create trigger refuse_${table} before insert on ${table} for each row
    when (new.${column} = '${nodeId}') execute function refuse_${table}()`).execute(h.db);
}

describe('PostgresIntakeStore', () => {
  it('writes node, edge and the collection’s access rows in one call', async () => {
    const { node, edge } = content('ok');
    expect(await new PostgresIntakeStore(h).writeContent(node, edge)).toEqual({ propagationError: null });
    expect(await rowsOf(node.id, edge.id)).toEqual({ nodes: 1, edges: 1, access: [{ subject_id: ownerId, access: 'owner' }] });
  });

  it('a new node gets the same search documents as node_search_document and the title alone give', async () => {
    const { node, edge } = content('Bygg feilet på main');
    await new PostgresIntakeStore(h).writeContent({ ...node, content: 'Tre tester feilet' }, edge);
    const { rows } = await sql<{ same: boolean; same_title: boolean }>`
      select s.document = node_search_document(n.title, n.content) as same,
             s.title_document = setweight(to_tsvector('simple', n.title), 'A') as same_title
        from node_search s join nodes n on n.id = s.node_id where n.id = ${node.id}`.execute(h.db);
    expect(rows).toEqual([{ same: true, same_title: true }]);
  });

  it('a propagation that fails in the database rolls back that step alone: node and edge commit, a repair is queued, the error is returned', async () => {
    const { node, edge } = content('p');
    await refuseInsert('node_access', node.id);
    expect(await new PostgresIntakeStore(h).writeContent(node, edge)).toEqual({ propagationError: 'refused for the test' });
    expect(await rowsOf(node.id, edge.id)).toEqual({ nodes: 1, edges: 1, access: [] });
    const jobs = await h.db.selectFrom('job_queue').select('payload').where('job_type', '=', 'access_repair').execute();
    expect(jobs.map((j) => j.payload)).toContainEqual({ edge_id: edge.id });
  });

  it('a failing node insert keeps nothing and names the node step', async () => {
    const { node, edge } = content('n');
    await refuseInsert('nodes', node.id);
    const thrown = await new PostgresIntakeStore(h).writeContent(node, edge).catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(IntakeWriteError);
    expect((thrown as IntakeWriteError).step).toBe('node');
    expect(((thrown as IntakeWriteError).cause as Error).message).toBe('refused for the test');
    expect(await rowsOf(node.id, edge.id)).toEqual({ nodes: 0, edges: 0, access: [] });
  });

  it('a failing edge insert keeps nothing, not even the node, and names the edge step', async () => {
    const { node, edge } = content('e');
    await refuseInsert('edges', node.id);
    const thrown = await new PostgresIntakeStore(h).writeContent(node, edge).catch((err: unknown) => err);
    expect((thrown as IntakeWriteError).step).toBe('edge');
    expect(await rowsOf(node.id, edge.id)).toEqual({ nodes: 0, edges: 0, access: [] });
  });

  it('a write to a collection deleted since the lookup is refused as for a deleted webhook, and keeps nothing', async () => {
    const { node, edge } = content('gone');
    const thrown = await new PostgresIntakeStore(h).writeContent(node, { ...edge, target_id: uuidv7() }).catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe('webhook_not_found');
    expect(await rowsOf(node.id, edge.id)).toEqual({ nodes: 0, edges: 0, access: [] });
  });
});
