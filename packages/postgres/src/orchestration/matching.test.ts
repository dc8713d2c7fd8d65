import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { createCollection, createEdge, createNode, createPerson, deleteEdge } from '../graph/index.js';
import { insertNeverMatchingOrchestrations, openTestDatabase, type OpenTestDatabase } from '../testing/index.js';

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
  alice = { personId: (await createPerson(h.db, { subject: 'alice' })).id, isAdmin: false };
  stranger = { personId: (await createPerson(h.db, { subject: 'stranger' })).id, isAdmin: false };
  inbox = (await createCollection(h.db, { title: 'Innboks', ownerId: alice.personId })).id;
  theirs = (await createCollection(h.db, { title: 'Fremmed', ownerId: stranger.personId })).id;
});
afterAll(() => h.dispose());

async function orchestration(owner: typeof alice, trigger: object): Promise<string> {
  return (await createNode(h.db, owner, { node_kind: 'orchestration', title: 'o', content: 'steps: []', metadata: { trigger } })).id;
}

async function runsFor(subjectId: string): Promise<string[]> {
  const rows = await h.db.selectFrom('orchestration_runs').select('orchestration_id').where('subject_id', '=', subjectId).execute();
  return rows.map((r) => r.orchestration_id);
}

async function content(owner = alice, extra: { node_kind?: string; collection_id?: string } = {}) {
  return (await createNode(h.db, owner, { node_kind: 'content', title: 'Hei', collection_id: inbox, ...extra })).id;
}

/** Median milliseconds of `n` runs of `work`. */
async function median(n: number, work: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(n / 2)]!;
}

/** What a write into alice's hidden inbox pays at commit: matching its node.created event. */
async function matchingMedian(node: string): Promise<number> {
  return median(41, () => sql`select count(*) from inntak_matching_orchestrations('node.created', ${node}::uuid)`.execute(h.db));
}

describe('the index follows the orchestrations', () => {
  it('an added observes edge widens what an orchestration matches to that node; a deleted one narrows it again', async () => {
    const watched = (await createCollection(h.db, { title: 'Overvåket', ownerId: alice.personId })).id;
    const other = (await createCollection(h.db, { title: 'Også overvåket', ownerId: alice.personId })).id;
    const o = await orchestration(alice, { event: 'node.created', conditions: { node_kind: 'omfang' } });
    const first = await createEdge(h.db, alice, { source_id: o, target_id: watched, edge_type: 'observes' });
    expect(await runsFor(await content(alice, { node_kind: 'omfang' }))).not.toContain(o);
    expect(await runsFor(await content(alice, { node_kind: 'omfang', collection_id: other }))).not.toContain(o);
    await createEdge(h.db, alice, { source_id: o, target_id: other, edge_type: 'observes' });
    expect(await runsFor(await content(alice, { node_kind: 'omfang', collection_id: other }))).toContain(o);
    expect(await runsFor(await content(alice, { node_kind: 'omfang', collection_id: watched }))).toContain(o);
    // The last observes edge cannot go (the write policy); one of two can, and the index forgets it.
    await deleteEdge(h.db, alice, { edge_id: first.id });
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
    const probe = await content();
    const before = await matchingMedian(probe);
    // None ever matches alice's hidden writes.
    const started = performance.now();
    await insertNeverMatchingOrchestrations(h.db, stranger.personId, theirs, COUNT);
    const bulkMs = performance.now() - started;
    // Before 017 every one of the 3,000 creations and 4,000 edges was tested against every
    // orchestration at commit (21 million pairs).
    expect(bulkMs).toBeLessThan(20_000);
    expect(Number((await sql<{ n: string }>`select count(*) as n from orchestration_subscriptions where creator = ${stranger.personId}`.execute(h.db)).rows[0]!.n)).toBe(COUNT);

    const node = await content();
    expect(await runsFor(node)).toEqual([]);
    // Before 017 the matching tested all 3,000 (about 12 ms here, against under 1 ms).
    const after = await matchingMedian(probe);
    expect(after).toBeLessThan(before * 2 + 2);
  });
});
