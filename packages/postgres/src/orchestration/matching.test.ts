import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { openDatabase, type Db } from '../platform/index.js';
import { insertNeverMatchingOrchestrations, openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';
import { createCollection, createEdge, createNode, createPerson, deleteEdge } from '@inntak/access';

// Issue 22, finding 8: matching probes an index of orchestrations (017) instead of testing every
// one on every write. The rules themselves are apps/worker/src/orchestrate-matching.test.ts's.

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
let h: OpenTestDatabase;
let alice: { personId: string; isAdmin: false };
let stranger: { personId: string; isAdmin: false };
let inbox: string;
let theirs: string;

beforeAll(async () => {
  h = await openTestDatabase(quiet);
  alice = { personId: (await createPerson(storesOn(h.db).graph, { subject: 'alice' })).id, isAdmin: false };
  stranger = { personId: (await createPerson(storesOn(h.db).graph, { subject: 'stranger' })).id, isAdmin: false };
  inbox = (await createCollection(storesOn(h.db).graph, { title: 'Innboks', ownerId: alice.personId })).id;
  theirs = (await createCollection(storesOn(h.db).graph, { title: 'Fremmed', ownerId: stranger.personId })).id;
});
afterAll(() => h.dispose());

async function orchestration(owner: typeof alice, trigger: object): Promise<string> {
  return (await createNode(storesOn(h.db).graph, owner, { node_kind: 'orchestration', title: 'o', content: 'steps: []', metadata: { trigger } })).id;
}

async function runsFor(subjectId: string): Promise<string[]> {
  const rows = await h.db.selectFrom('orchestration_runs').select('orchestration_id').where('subject_id', '=', subjectId).execute();
  return rows.map((r) => r.orchestration_id);
}

async function content(owner = alice, extra: { node_kind?: string; collection_id?: string } = {}) {
  return (await createNode(storesOn(h.db).graph, owner, { node_kind: 'content', title: 'Hei', collection_id: inbox, ...extra })).id;
}

/**
 * The rows PostgreSQL read (sequential and index fetches, all tables) while `work` ran on `one`,
 * a single connection, from its statistics: work counted, not timed. Its counts are flushed
 * before each reading, so they are all of `work`'s.
 */
async function rowsRead(one: Db, work: () => Promise<unknown>): Promise<number> {
  const total = async () => {
    await sql`select pg_stat_force_next_flush()`.execute(one);
    const { rows } = await sql<{ n: string }>`select sum(seq_tup_read + coalesce(idx_tup_fetch, 0)) as n from pg_stat_user_tables`.execute(one);
    return Number(rows[0]!.n);
  };
  const before = await total();
  await work();
  return (await total()) - before;
}

/** What a write into alice's hidden inbox pays at commit: matching its node.created event. */
function matching(one: Db, node: string): Promise<number> {
  return rowsRead(one, () => sql`select count(*) from inntak_matching_orchestrations('node.created', ${node}::uuid)`.execute(one));
}

describe('the index follows the orchestrations', () => {
  it('an added observes edge widens what an orchestration matches to that node; a deleted one narrows it again', async () => {
    const watched = (await createCollection(storesOn(h.db).graph, { title: 'Overvåket', ownerId: alice.personId })).id;
    const other = (await createCollection(storesOn(h.db).graph, { title: 'Også overvåket', ownerId: alice.personId })).id;
    const o = await orchestration(alice, { event: 'node.created', conditions: { node_kind: 'omfang' } });
    const first = await createEdge(storesOn(h.db).graph, alice, { source_id: o, target_id: watched, edge_type: 'observes' });
    expect(await runsFor(await content(alice, { node_kind: 'omfang' }))).not.toContain(o);
    expect(await runsFor(await content(alice, { node_kind: 'omfang', collection_id: other }))).not.toContain(o);
    await createEdge(storesOn(h.db).graph, alice, { source_id: o, target_id: other, edge_type: 'observes' });
    expect(await runsFor(await content(alice, { node_kind: 'omfang', collection_id: other }))).toContain(o);
    expect(await runsFor(await content(alice, { node_kind: 'omfang', collection_id: watched }))).toContain(o);
    // The last observes edge cannot go (the write policy); one of two can, and the index forgets it.
    await deleteEdge(storesOn(h.db).graph, alice, { edge_id: first.id });
    expect(await runsFor(await content(alice, { node_kind: 'omfang', collection_id: watched }))).not.toContain(o);
    expect(await runsFor(await content(alice, { node_kind: 'omfang', collection_id: other }))).toContain(o);
  });

  it('a changed trigger is matched by its new conditions', async () => {
    const o = await orchestration(alice, { event: 'node.created', conditions: { node_kind: 'før' } });
    await sql`update nodes set metadata = jsonb_build_object('trigger', jsonb_build_object('event', 'node.created', 'conditions', jsonb_build_object('node_kind', 'etter'))) where id = ${o}`.execute(h.db);
    expect(await runsFor(await content(alice, { node_kind: 'før' }))).not.toContain(o);
    expect(await runsFor(await content(alice, { node_kind: 'etter' }))).toContain(o);
  });

  it('an orchestration whose creator is gone matches nothing', async () => {
    const o = await orchestration(alice, { event: 'node.created', conditions: { node_kind: 'foreldreløs' } });
    await sql`update nodes set created_by = null where id = ${o}`.execute(h.db);
    expect(await runsFor(await content(alice, { node_kind: 'foreldreløs' }))).not.toContain(o);
    expect(await h.db.selectFrom('orchestration_subscriptions').select('orchestration_id').where('orchestration_id', '=', o).execute()).toEqual([]);
  });
});

describe("a stranger's many never-matching orchestrations (the issue's 10,000, scaled down)", () => {
  const COUNT = 3000;

  it('are bulk-inserted in one statement in linear time, and matching a write costs no more than without them', async () => {
    const one = openDatabase({ connectionString: h.url, logger: quiet, max: 1 });
    try {
      const probe = await content();
      const before = await matching(one.db, probe);
      // None ever matches alice's hidden writes.
      const bulk = await rowsRead(one.db, () => insertNeverMatchingOrchestrations(one.db, stranger.personId, theirs, COUNT));
      // Before 017 every one of the 3,000 creations and 4,000 edges was tested against every
      // orchestration at commit (21 million pairs); rows read per orchestration stay few now.
      expect(bulk).toBeLessThan(50 * COUNT);
      expect(Number((await sql<{ n: string }>`select count(*) as n from orchestration_subscriptions where creator = ${stranger.personId}`.execute(h.db)).rows[0]!.n)).toBe(COUNT);

      const node = await content();
      expect(await runsFor(node)).toEqual([]);
      // Before 017 the matching tested all 3,000; now it reads what it did without them.
      const after = await matching(one.db, probe);
      expect(after).toBeLessThanOrEqual(before + 10);
    } finally {
      await one.close();
    }
  });
});
