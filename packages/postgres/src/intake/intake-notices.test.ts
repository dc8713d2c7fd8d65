import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import pg from 'pg';
import { uuidv7 } from '@inntak/core';
import type { DeliveryLogEntry } from '@inntak/intake';
import type { NewEdge, NewNode } from '@inntak/graph';
import { PostgresIntakeStore } from './intake-store.js';
import type { DatabaseHandle, PreparedStatement } from '../platform/index.js';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';
import { createCollection, createPerson } from '@inntak/access';

// Migration 031: the intake's change notices are sent after its commit by the store, not by the
// triggers inside it; the realtime feed must get the same notices, in the same order.

let h: OpenTestDatabase;
let listener: pg.Client;
let collectionId: string;
let ownerId: string;
const notices: Array<[string, Record<string, unknown>]> = [];

beforeAll(async () => {
  h = await openTestDatabase();
  ownerId = (await createPerson(storesOn(h.db).graph, { subject: 'o' })).id;
  collectionId = (await createCollection(storesOn(h.db).graph, { title: 'C', ownerId })).id;
  listener = new pg.Client({ connectionString: h.url });
  await listener.connect();
  listener.on('notification', (n) => {
    const { at, ...payload } = JSON.parse(n.payload!) as Record<string, unknown>;
    if (typeof at === 'string') notices.push([n.channel, payload]);
  });
  await listener.query('listen inntak_nodes; listen inntak_edges; listen inntak_access');
});
afterAll(async () => {
  await listener.end();
  await h.dispose();
});

function content(title: string): { node: NewNode; edge: NewEdge; log: DeliveryLogEntry } {
  const node: NewNode = { id: uuidv7(), node_kind: 'content', title, content: null, visibility: 'hidden', metadata: {}, created_by: null };
  const edge: NewEdge = { id: uuidv7(), source_id: node.id, target_id: collectionId, edge_type: 'belongs_to', metadata: {}, system: true, created_by: null };
  const log: DeliveryLogEntry = { id: uuidv7(), webhookId: uuidv7(), receivedAt: new Date(), deliveryId: `d-${title}`, event: 'push', bytes: 10, durationMs: 1 };
  return { node, edge, log };
}

/** The notices a write should bring: its node, its edge, the owner's access row. */
const expected = ({ node, edge }: { node: NewNode; edge: NewEdge }) => [
  ['inntak_nodes', { op: 'insert', id: node.id }],
  ['inntak_edges', { op: 'insert', id: edge.id }],
  ['inntak_access', { op: 'insert', subject_id: ownerId, object_id: node.id }],
];

async function noticesAfter(write: () => Promise<unknown>, count: number): Promise<typeof notices> {
  notices.length = 0;
  await write();
  for (let i = 0; i < 200 && notices.length < count; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 50)); // none beyond those expected
  return [...notices];
}

describe("an intake's change notices", () => {
  it('a write sends its node, edge and access row notices, each once, in that order', async () => {
    const one = content('en');
    expect(await noticesAfter(() => new PostgresIntakeStore(h).writeContent(one.node, one.edge, one.log), 3)).toEqual(expected(one));
  });

  it("a group commit's batch sends every write's notices after its one commit, write by write; a duplicate in it sends none", async () => {
    const [a, b] = [content('a'), content('b')];
    const again = { ...content('dup'), log: { ...a.log, id: uuidv7() } };
    const sent = await noticesAfter(() => new PostgresIntakeStore(h).writeContents([a, b, again]), 6);
    expect(sent).toEqual([...expected(a), ...expected(b)]);
  });

  it('a write through inntak_intake_write, as an API from before 031 calls it, still notifies from its triggers', async () => {
    const old = content('gammel');
    const { node, edge, log } = old;
    const sent = await noticesAfter(
      () => sql`select * from inntak_intake_write(${node.id}, 'content', ${node.title}, null, 'hidden', '{}', null,
                 ${edge.id}, ${node.id}, ${collectionId}, 'belongs_to', '{}', true, null,
                 ${log.id}, ${log.webhookId}, now(), ${log.deliveryId}, 'push', 10, 1)`.execute(h.db),
      3,
    );
    expect(sent).toEqual(expected(old));
  });

  it('writes answered while notices are being sent have theirs sent together in the next statement, in the order they were answered', async () => {
    const statements: unknown[][] = [];
    let allAnswered!: () => void;
    const answered = new Promise<void>((resolve) => (allAnswered = resolve));
    const counting: Pick<DatabaseHandle, 'prepared'> = {
      prepared: async <R>(s: PreparedStatement, values: unknown[]) => {
        if (s.name === 'inntak_intake_notices') {
          // The first statement is held in flight until every write has been answered.
          if (statements.length === 0) await answered;
          statements.push(values[0] as unknown[]);
        }
        return h.prepared<R>(s, values);
      },
    };
    const store = new PostgresIntakeStore(counting);
    const writes = ['w1', 'w2', 'w3', 'w4', 'w5', 'w6'].map(content);
    const order: typeof writes = [];
    const sent = await noticesAfter(async () => {
      for (const w of writes) await store.writeContent(w.node, w.edge, w.log).then(() => order.push(w));
      allAnswered();
      await store.noticesSent();
    }, 18);
    expect(order).toEqual(writes);
    expect(sent).toEqual(writes.flatMap(expected));
    expect(statements).toEqual([[writes[0]!.node.id], writes.slice(1).map((w) => w.node.id)]);
  });

  it('notices that cannot be sent leave the write stored and answered, and are reported', async () => {
    const lost = content('tapt');
    const reported: unknown[] = [];
    // The notices' statement fails as a lost connection would; the write itself is real.
    const failing: Pick<DatabaseHandle, 'prepared'> = {
      prepared: <R>(s: PreparedStatement, values: unknown[]) => (s.name === 'inntak_intake_notices' ? Promise.reject(new Error('connection lost')) : h.prepared<R>(s, values)),
    };
    const store = new PostgresIntakeStore(failing, (error) => reported.push(error));
    const outcome = await store.writeContent(lost.node, lost.edge, lost.log);
    expect(outcome).toEqual({ propagationError: null, duplicateOf: null });
    await store.noticesSent();
    expect((reported as Error[]).map((e) => e.message)).toEqual(['connection lost']);
    expect(await h.db.selectFrom('nodes').select('id').where('id', '=', lost.node.id).execute()).toEqual([{ id: lost.node.id }]);
  });
});
