import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { AppError, uuidv7 } from '@inntak/core';
import { IntakeWriteError, type DeliveryLogEntry } from '@inntak/intake';
import type { NewEdge, NewNode } from '@inntak/graph';
import { PostgresIntakeStore } from './intake-store.js';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';
import { createCollection, createPerson } from '@inntak/access';

let h: OpenTestDatabase;
let collectionId: string;
let ownerId: string;
beforeAll(async () => {
  h = await openTestDatabase();
  ownerId = (await createPerson(storesOn(h.db).graph, { subject: 'o' })).id;
  collectionId = (await createCollection(storesOn(h.db).graph, { title: 'C', ownerId })).id;
});
afterAll(() => h.dispose());

function content(title: string): { node: NewNode; edge: NewEdge } {
  const node: NewNode = { id: uuidv7(), node_kind: 'content', title, content: null, visibility: 'hidden', metadata: { payload: { a: 1 } }, created_by: null };
  const edge: NewEdge = { id: uuidv7(), source_id: node.id, target_id: collectionId, edge_type: 'belongs_to', metadata: {}, system: true, created_by: null };
  return { node, edge };
}

const WEBHOOK_ID = uuidv7();
function logEntry(deliveryId: string | null = null): DeliveryLogEntry {
  return { id: uuidv7(), webhookId: WEBHOOK_ID, receivedAt: new Date(), deliveryId, event: 'push', bytes: 1870, durationMs: 3 };
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
    expect(await new PostgresIntakeStore(h).writeContent(node, edge, logEntry())).toEqual({ propagationError: null, duplicateOf: null });
    expect(await rowsOf(node.id, edge.id)).toEqual({ nodes: 1, edges: 1, access: [{ subject_id: ownerId, access: 'owner' }] });
  });

  it('a new node gets the same search documents as node_search_document and the title alone give', async () => {
    const { node, edge } = content('Bygg feilet på main');
    await new PostgresIntakeStore(h).writeContent({ ...node, content: 'Tre tester feilet' }, edge, logEntry());
    const { rows } = await sql<{ same: boolean; same_title: boolean }>`
      select s.document = node_search_document(n.title, n.content) as same,
             s.title_document = setweight(to_tsvector('simple', n.title), 'A') as same_title
        from node_search s join nodes n on n.id = s.node_id where n.id = ${node.id}`.execute(h.db);
    expect(rows).toEqual([{ same: true, same_title: true }]);
  });

  it('a propagation that fails in the database rolls back that step alone: node and edge commit, a repair is queued, the error is returned', async () => {
    const { node, edge } = content('p');
    await refuseInsert('node_access', node.id);
    expect(await new PostgresIntakeStore(h).writeContent(node, edge, logEntry())).toEqual({ propagationError: 'refused for the test', duplicateOf: null });
    expect(await rowsOf(node.id, edge.id)).toEqual({ nodes: 1, edges: 1, access: [] });
    const jobs = await h.db.selectFrom('job_queue').select('payload').where('job_type', '=', 'access_repair').execute();
    expect(jobs.map((j) => j.payload)).toContainEqual({ edge_id: edge.id });
  });

  it('a failing node insert keeps nothing and names the node step', async () => {
    const { node, edge } = content('n');
    await refuseInsert('nodes', node.id);
    const thrown = await new PostgresIntakeStore(h).writeContent(node, edge, logEntry()).catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(IntakeWriteError);
    expect((thrown as IntakeWriteError).step).toBe('node');
    expect(((thrown as IntakeWriteError).cause as Error).message).toBe('refused for the test');
    expect(await rowsOf(node.id, edge.id)).toEqual({ nodes: 0, edges: 0, access: [] });
  });

  it('a failing edge insert keeps nothing, not even the node, and names the edge step', async () => {
    const { node, edge } = content('e');
    await refuseInsert('edges', node.id);
    const thrown = await new PostgresIntakeStore(h).writeContent(node, edge, logEntry()).catch((err: unknown) => err);
    expect((thrown as IntakeWriteError).step).toBe('edge');
    expect(await rowsOf(node.id, edge.id)).toEqual({ nodes: 0, edges: 0, access: [] });
  });

  it('a write to a collection deleted since the lookup is refused as for a deleted webhook, and keeps nothing', async () => {
    const { node, edge } = content('gone');
    const thrown = await new PostgresIntakeStore(h).writeContent(node, { ...edge, target_id: uuidv7() }, logEntry()).catch((err: unknown) => err);
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe('webhook_not_found');
    expect(await rowsOf(node.id, edge.id)).toEqual({ nodes: 0, edges: 0, access: [] });
  });
});

describe('PostgresIntakeStore: the delivery log and duplicates', () => {
  const logRows = (deliveryId: string) =>
    h.db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', WEBHOOK_ID).where('delivery_id', '=', deliveryId).orderBy('id').execute();

  it('a 200 is logged in the write itself, with its node, edge, event and size', async () => {
    const { node, edge } = content('logged');
    const log = logEntry('gh-1');
    await new PostgresIntakeStore(h).writeContent(node, edge, log);
    expect(await logRows('gh-1')).toEqual([
      expect.objectContaining({ id: log.id, status: 200, node_id: node.id, edge_id: edge.id, event: 'push', bytes: '1870', duration_ms: 3, duplicate: false, error: null }),
    ]);
  });

  it('the same delivery id within 24 hours stores nothing new and returns the first copy’s node and edge', async () => {
    const first = content('first copy');
    const second = content('second copy');
    const store = new PostgresIntakeStore(h);
    await store.writeContent(first.node, first.edge, logEntry('gh-2'));
    expect(await store.writeContent(second.node, second.edge, logEntry('gh-2'))).toEqual({
      propagationError: null,
      duplicateOf: { nodeId: first.node.id, edgeId: first.edge.id },
    });
    expect(await rowsOf(second.node.id, second.edge.id)).toEqual({ nodes: 0, edges: 0, access: [] });
    expect((await logRows('gh-2')).map((r) => [r.duplicate, r.node_id])).toEqual([
      [false, first.node.id],
      [true, first.node.id],
    ]);
  });

  it('the same delivery id after 24 hours is a new delivery', async () => {
    const store = new PostgresIntakeStore(h);
    const first = content('yesterday');
    await store.writeContent(first.node, first.edge, logEntry('gh-3'));
    await h.db.updateTable('webhook_delivery_ids').set({ claimed_at: sql`now() - interval '25 hours'` }).where('delivery_id', '=', 'gh-3').execute();
    const again = content('today');
    expect(await store.writeContent(again.node, again.edge, logEntry('gh-3'))).toEqual({ propagationError: null, duplicateOf: null });
    expect(await rowsOf(again.node.id, again.edge.id)).toMatchObject({ nodes: 1, edges: 1 });
  });

  it('a failed write keeps neither its log row nor its claim on the delivery id, so a retry is stored', async () => {
    const store = new PostgresIntakeStore(h);
    const failing = content('fails at the edge');
    await expect(store.writeContent(failing.node, { ...failing.edge, target_id: uuidv7() }, logEntry('gh-4'))).rejects.toThrow();
    expect(await logRows('gh-4')).toEqual([]);
    const retry = content('retried');
    expect(await store.writeContent(retry.node, retry.edge, logEntry('gh-4'))).toEqual({ propagationError: null, duplicateOf: null });
  });

  it('a failed delivery is counted apart from the log, with its status and error', async () => {
    const webhookId = uuidv7();
    const failure = { ...logEntry('gh-5'), webhookId, status: 400, error: 'Ugyldig JSON i forespørselen' };
    await new PostgresIntakeStore(h).recordFailedDelivery(failure);
    expect(await logRows('gh-5')).toEqual([]);
    const rows = await h.db.selectFrom('webhook_refusals').selectAll().where('webhook_id', '=', webhookId).execute();
    expect(rows).toEqual([expect.objectContaining({ id: failure.id, status: 400, reason: 'Ugyldig JSON i forespørselen', error: 'Ugyldig JSON i forespørselen', count: 1, delivery_id: 'gh-5' })]);
  });

  it('refusals add one row per webhook, minute, status and reason, however many (issue 22, finding 12)', async () => {
    const store = new PostgresIntakeStore(h);
    const webhookId = uuidv7();
    const minuteStart = Math.floor(Date.now() / 60_000) * 60_000 - 10 * 60_000;
    const refusal = (minute: number, i: number, status: number, error: string) => {
      const receivedAt = new Date(minuteStart + minute * 60_000 + i * 100);
      return { id: uuidv7(receivedAt.getTime()), webhookId, receivedAt, deliveryId: `attacker-${minute}-${i}`, event: null, bytes: 10, durationMs: i, status, error };
    };
    const writes = [];
    for (let minute = 0; minute < 3; minute++) {
      for (let i = 0; i < 100; i++) writes.push(store.recordFailedDelivery(refusal(minute, i, 401, 'Ugyldig signatur')));
      for (let i = 0; i < 20; i++) writes.push(store.recordFailedDelivery(refusal(minute, i, 415, `Kodingen støttes ikke: Content-Encoding x-${i}`)));
    }
    await Promise.all(writes);
    const rows = await h.db.selectFrom('webhook_refusals').selectAll().where('webhook_id', '=', webhookId).orderBy('minute').orderBy('status').execute();
    expect(rows.map((r) => [r.status, r.reason, r.count, Number(r.bytes), r.duration_ms])).toEqual(
      Array.from({ length: 3 }, () => [
        [401, 'Ugyldig signatur', 100, 1000, 99],
        [415, 'Kodingen støttes ikke', 20, 200, 19],
      ]).flat(),
    );
    // Each row keeps its minute's first and last arrival.
    expect(rows[0]!.first_received_at.getTime()).toBe(minuteStart);
    expect(rows[0]!.last_received_at.getTime()).toBe(minuteStart + 99 * 100);
  });
});
