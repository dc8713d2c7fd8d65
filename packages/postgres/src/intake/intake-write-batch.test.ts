import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { uuidv7 } from '@inntak/core';
import { tokenHash, type ContentWrite, type DeliveryLogEntry } from '@inntak/intake';
import type { NewEdge, NewNode } from '@inntak/graph';
import { createCollection, createPerson } from '@inntak/access';
import { PostgresIntakeStore } from './intake-store.js';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';

// Migration 042: a group commit's batch is written set-wise by inntak_intake_write_batch, which
// must leave the rows and answers that writing each of its writes alone would.

let h: OpenTestDatabase;
let collectionId: string;
let ownerId: string;
let readerId: string;
beforeAll(async () => {
  h = await openTestDatabase();
  const graph = storesOn(h.db).graph;
  ownerId = (await createPerson(graph, { subject: 'o' })).id;
  readerId = (await createPerson(graph, { subject: 'r' })).id;
  collectionId = (await createCollection(graph, { title: 'C', ownerId })).id;
  await h.db.insertInto('node_access').values({ subject_id: readerId, object_id: collectionId, access: 'member' }).execute();
});
afterAll(() => h.dispose());

const RECEIVED = new Date('2031-03-04T05:06:07.000Z');

interface WriteSpec {
  deliveryId?: string | null;
  previousToken?: string;
  headers?: Record<string, string>;
  /** The belongs_to edge's metadata: max_access caps what the collection passes down (007). */
  edgeMetadata?: Record<string, unknown>;
  title?: string;
}

function write(webhookId: string, i: number, spec: WriteSpec = {}): ContentWrite {
  const node: NewNode = {
    id: uuidv7(),
    node_kind: 'content',
    title: spec.title ?? `Skriving ${i}`,
    content: `Innhold ${i}`,
    visibility: 'hidden',
    metadata: { payload: { i }, webhook_id: webhookId },
    created_by: null,
  };
  const edge: NewEdge = { id: uuidv7(), source_id: node.id, target_id: collectionId, edge_type: 'belongs_to', metadata: spec.edgeMetadata ?? {}, system: true, created_by: null };
  const log: DeliveryLogEntry = {
    id: uuidv7(),
    webhookId,
    receivedAt: new Date(RECEIVED.getTime() + i * 1000),
    deliveryId: spec.deliveryId === undefined ? null : spec.deliveryId,
    event: 'push',
    bytes: 100 + i,
    durationMs: i,
    ...(spec.headers ? { headers: spec.headers } : {}),
    ...(spec.previousToken ? { previousToken: spec.previousToken } : {}),
  };
  return { node, edge, log };
}

/** A previous token in its grace, of a webhook node of its own (the table's foreign key). */
async function previousToken(token: string): Promise<{ hash: string; webhookId: string }> {
  const webhookId = (await createPerson(storesOn(h.db).graph, { subject: `webhook-${token}` })).id;
  const hash = tokenHash(token);
  await sql`insert into webhook_previous_tokens (token_hash, webhook_id, grace_until) values (${hash}, ${webhookId}, now() + interval '1 day')`.execute(h.db);
  return { hash, webhookId };
}

function relabel(value: unknown, labels: Map<string, string>): unknown {
  return JSON.parse(JSON.stringify(value, (_, v: unknown) => (typeof v === 'string' && labels.has(v) ? labels.get(v) : v)));
}

/** Every row the writes left, with their ids as labels (node0, edge0, log0…), so two runs compare. */
async function rowsOf(writes: ContentWrite[], labels: Map<string, string>) {
  const nodeIds = writes.map((w) => w.node.id);
  const byLabel = (rows: Array<Record<string, unknown>>) => (relabel(rows, labels) as Array<Record<string, unknown>>).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  const webhookIds = [...new Set(writes.map((w) => w.log.webhookId))];
  return {
    nodes: byLabel(
      (await sql<Record<string, unknown>>`select id, node_kind, title, content, visibility, metadata, created_by from nodes where id = any(${nodeIds}::uuid[])`.execute(h.db))
        .rows,
    ),
    edges: byLabel(
      (
        await sql<Record<string, unknown>>`select id, source_id, target_id, edge_type, metadata, system, created_by from edges where source_id = any(${nodeIds}::uuid[])`.execute(
          h.db,
        )
      ).rows,
    ),
    access: byLabel(
      (await sql<Record<string, unknown>>`select subject_id, object_id, access, via_edge from node_access where object_id = any(${nodeIds}::uuid[])`.execute(h.db)).rows,
    ),
    search: byLabel(
      (
        await sql<Record<string, unknown>>`select node_id, document::text, title_document::text, readers::text from node_search where node_id = any(${nodeIds}::uuid[])`.execute(
          h.db,
        )
      ).rows,
    ),
    log: byLabel(
      (
        await sql<Record<string, unknown>>`select id, webhook_id, received_at, status, error, node_id, edge_id, delivery_id, event, duplicate, bytes, duration_ms,
                   previous_token, headers, replay_of
              from webhook_deliveries where webhook_id = any(${webhookIds}::uuid[])`.execute(h.db)
      ).rows,
    ),
    claims: byLabel(
      (await sql<Record<string, unknown>>`select webhook_id, delivery_id, node_id, edge_id from webhook_delivery_ids where webhook_id = any(${webhookIds}::uuid[])`.execute(h.db))
        .rows,
    ),
    tokens: byLabel(
      (await sql<Record<string, unknown>>`select webhook_id, hits, last_hit_at from webhook_previous_tokens where webhook_id = any(${webhookIds}::uuid[])`.execute(h.db)).rows,
    ),
    repairs: byLabel(
      (await sql<Record<string, unknown>>`select payload from job_queue where job_type = 'access_repair' and payload ->> 'edge_id' = any(${writes.map((w) => w.edge.id)}::text[])`.execute(h.db))
        .rows,
    ),
  };
}

function labelsOf(writes: ContentWrite[], webhookId: string): Map<string, string> {
  const labels = new Map<string, string>([[webhookId, 'webhook']]);
  writes.forEach((w, i) => {
    labels.set(w.node.id, `node${i}`);
    labels.set(w.edge.id, `edge${i}`);
    labels.set(w.log.id, `log${i}`);
  });
  return labels;
}

/** A refusal of access rows for these nodes, in the database (a real failure of the propagation step). */
async function refuseAccessRows(name: string, nodeIds: string[]): Promise<() => Promise<void>> {
  await sql.raw(`create function ${name}() returns trigger language plpgsql as $$ begin raise exception 'refused for the test'; end $$`).execute(h.db);
  await sql
    .raw(`create trigger ${name} before insert on node_access for each row when (new.object_id = any('{${nodeIds.join(',')}}'::uuid[])) execute function ${name}()`)
    .execute(h.db);
  return async () => {
    await sql.raw(`drop trigger ${name} on node_access; drop function ${name}()`).execute(h.db);
  };
}

describe('inntak_intake_write_batch', () => {
  it('a batch writes every node, edge, access rows and log row as one-by-one writes would', async () => {
    // The same writes twice, each under a webhook of its own (the delivery ids are per webhook):
    // one by one through writeContent, then as one batch through writeContents.
    const run = async (batch: boolean) => {
      const { hash, webhookId } = await previousToken(`old-${batch}`);
      const seen = write(webhookId, 9, { deliveryId: 'seen-before' });
      const writes = [
        write(webhookId, 0, { deliveryId: 'a', headers: { 'user-agent': 'GitHub-Hookshot/1', 'x-hub-signature-256': '***' }, previousToken: hash }),
        write(webhookId, 1, { deliveryId: null }),
        write(webhookId, 2, { deliveryId: 'b', edgeMetadata: { max_access: 'reader' } }),
        write(webhookId, 3, { deliveryId: 'a', previousToken: hash }),
        write(webhookId, 4, { deliveryId: 'seen-before' }),
        write(webhookId, 5, { deliveryId: 'c', title: 'Samme tittel' }),
      ];
      const store = new PostgresIntakeStore(h);
      await store.writeContent(seen.node, seen.edge, seen.log);
      const outcomes = [];
      if (batch) outcomes.push(...(await store.writeContents(writes)));
      // One after the other, each its own transaction: the order of the duplicates is the point.
      else for (const w of writes) outcomes.push(await store.writeContent(w.node, w.edge, w.log));
      await store.noticesSent();
      const labels = labelsOf(writes, webhookId).set(seen.node.id, 'seen-node').set(seen.edge.id, 'seen-edge').set(seen.log.id, 'seen-log');
      return { outcomes: relabel(outcomes, labels), rows: await rowsOf([seen, ...writes], labels) };
    };
    const oneByOne = await run(false);
    const batched = await run(true);

    expect(batched).toEqual(oneByOne);
    // What was compared is what the writes should have left, not two equal mistakes.
    expect(batched.outcomes).toEqual([
      { propagationError: null, duplicateOf: null },
      { propagationError: null, duplicateOf: null },
      { propagationError: null, duplicateOf: null },
      { propagationError: null, duplicateOf: { nodeId: 'node0', edgeId: 'edge0' } },
      { propagationError: null, duplicateOf: { nodeId: 'seen-node', edgeId: 'seen-edge' } },
      { propagationError: null, duplicateOf: null },
    ]);
    expect(batched.rows.nodes.map((n) => n.id).sort()).toEqual(['node0', 'node1', 'node2', 'node5', 'seen-node']);
    expect(batched.rows.access.filter((a) => a.object_id === 'node2')).toEqual(
      expect.arrayContaining([
        { subject_id: ownerId, object_id: 'node2', access: 'reader', via_edge: 'edge2' },
        { subject_id: readerId, object_id: 'node2', access: 'reader', via_edge: 'edge2' },
      ]),
    );
    expect(batched.rows.access.filter((a) => a.object_id === 'node0')).toEqual(
      expect.arrayContaining([
        { subject_id: ownerId, object_id: 'node0', access: 'owner', via_edge: 'edge0' },
        { subject_id: readerId, object_id: 'node0', access: 'member', via_edge: 'edge0' },
      ]),
    );
    expect(batched.rows.log).toHaveLength(7);
    expect(batched.rows.tokens).toEqual([{ webhook_id: 'webhook', hits: '2', last_hit_at: new Date(RECEIVED.getTime() + 3000).toISOString() }]);
  });

  it('a delivery id seen before is answered with the first copy’s ids and writes only its log row', async () => {
    const webhookId = uuidv7();
    const store = new PostgresIntakeStore(h);
    const first = write(webhookId, 0, { deliveryId: 'gh-seen' });
    await store.writeContent(first.node, first.edge, first.log);
    const again = write(webhookId, 1, { deliveryId: 'gh-seen' });
    const other = write(webhookId, 2, { deliveryId: 'gh-new' });
    expect(await store.writeContents([again, other])).toEqual([
      { propagationError: null, duplicateOf: { nodeId: first.node.id, edgeId: first.edge.id } },
      { propagationError: null, duplicateOf: null },
    ]);
    expect(await h.db.selectFrom('nodes').select('id').where('id', '=', again.node.id).execute()).toEqual([]);
    expect(await h.db.selectFrom('edges').select('id').where('id', '=', again.edge.id).execute()).toEqual([]);
    expect(await h.db.selectFrom('node_access').select('subject_id').where('object_id', '=', again.node.id).execute()).toEqual([]);
    const log = await h.db.selectFrom('webhook_deliveries').selectAll().where('id', '=', again.log.id).execute();
    expect(log).toEqual([expect.objectContaining({ status: 200, duplicate: true, node_id: first.node.id, edge_id: first.edge.id, delivery_id: 'gh-seen' })]);
    // The claim still names the first copy.
    const claims = await h.db.selectFrom('webhook_delivery_ids').select(['node_id', 'edge_id']).where('webhook_id', '=', webhookId).where('delivery_id', '=', 'gh-seen').execute();
    expect(claims).toEqual([{ node_id: first.node.id, edge_id: first.edge.id }]);
  });

  it('two copies in one batch end as one node and one duplicate, in the batch’s one transaction', async () => {
    const webhookId = uuidv7();
    const [a, b, copy] = [write(webhookId, 0, { deliveryId: 'twice' }), write(webhookId, 1, { deliveryId: null }), write(webhookId, 2, { deliveryId: 'twice' })];
    // writeContents answers (a batch that failed would throw and be written again one by one).
    expect(await new PostgresIntakeStore(h).writeContents([a, b, copy])).toEqual([
      { propagationError: null, duplicateOf: null },
      { propagationError: null, duplicateOf: null },
      { propagationError: null, duplicateOf: { nodeId: a.node.id, edgeId: a.edge.id } },
    ]);
    const nodes = await h.db.selectFrom('nodes').select('id').where('id', 'in', [a.node.id, copy.node.id]).execute();
    expect(nodes).toEqual([{ id: a.node.id }]);
    const { rows } = await sql<{ id: string; duplicate: boolean; node_id: string; tx: string }>`
      select id, duplicate, node_id, xmin::text as tx from webhook_deliveries where webhook_id = ${webhookId} order by id`.execute(h.db);
    expect(rows.map((r) => [r.id, r.duplicate, r.node_id])).toEqual([
      [a.log.id, false, a.node.id],
      [b.log.id, false, b.node.id],
      [copy.log.id, true, a.node.id],
    ]);
    expect(new Set(rows.map((r) => r.tx)).size).toBe(1);
  });

  it('a propagation failure in a batch still answers every write, with a repair job queued per edge that failed', async () => {
    const webhookId = uuidv7();
    const writes = [0, 1, 2].map((i) => write(webhookId, i, { deliveryId: `p-${i}` }));
    // Only the middle write's access rows are refused: it alone is answered with the error, as alone.
    const undo = await refuseAccessRows('refuse_middle', [writes[1]!.node.id]);
    const outcomes = await new PostgresIntakeStore(h).writeContents(writes).finally(undo);
    expect(outcomes).toEqual([
      { propagationError: null, duplicateOf: null },
      { propagationError: 'refused for the test', duplicateOf: null },
      { propagationError: null, duplicateOf: null },
    ]);
    const access = await h.db.selectFrom('node_access').select('object_id').where('object_id', 'in', writes.map((w) => w.node.id)).execute();
    expect(new Set(access.map((a) => a.object_id))).toEqual(new Set([writes[0]!.node.id, writes[2]!.node.id]));
    const repairs = async (ws: ContentWrite[]) =>
      (await h.db.selectFrom('job_queue').select('payload').where('job_type', '=', 'access_repair').execute())
        .map((j) => (j.payload as { edge_id: string }).edge_id)
        .filter((id) => ws.some((w) => w.edge.id === id));
    expect(await repairs(writes)).toEqual([writes[1]!.edge.id]);

    // Every write's refused: each is answered with the error, each edge gets its repair, and the
    // nodes, edges and log rows stay.
    const all = [3, 4, 5].map((i) => write(webhookId, i, { deliveryId: `p-${i}` }));
    const undoAll = await refuseAccessRows('refuse_all', all.map((w) => w.node.id));
    const failed = await new PostgresIntakeStore(h).writeContents(all).finally(undoAll);
    expect(failed).toEqual(all.map(() => ({ propagationError: 'refused for the test', duplicateOf: null })));
    expect((await repairs(all)).sort()).toEqual(all.map((w) => w.edge.id).sort());
    expect(await h.db.selectFrom('edges').select('id').where('id', 'in', all.map((w) => w.edge.id)).execute()).toHaveLength(3);
    expect(await h.db.selectFrom('webhook_deliveries').select('id').where('id', 'in', all.map((w) => w.log.id)).execute()).toHaveLength(3);
  });

  it('a previous token’s delivery in a batch is marked and counted', async () => {
    const { hash, webhookId } = await previousToken('rotated');
    const writes = [
      write(webhookId, 0, { deliveryId: 'old-1', previousToken: hash }),
      write(webhookId, 1, { deliveryId: 'new-1' }),
      write(webhookId, 2, { deliveryId: 'old-1', previousToken: hash }),
      write(webhookId, 3, { deliveryId: null, previousToken: hash }),
    ];
    await new PostgresIntakeStore(h).writeContents(writes);
    const marks = await h.db.selectFrom('webhook_deliveries').select(['id', 'previous_token']).where('webhook_id', '=', webhookId).orderBy('id').execute();
    expect(marks.map((m) => m.previous_token)).toEqual([true, false, true, true]);
    const [token] = (await sql<{ hits: string; last_hit_at: Date }>`select hits, last_hit_at from webhook_previous_tokens where token_hash = ${hash}`.execute(h.db)).rows;
    // Three deliveries with it, the duplicate among them, as one-by-one writes count them (037).
    expect(token).toEqual({ hits: '3', last_hit_at: writes[3]!.log.receivedAt });
  });
});
