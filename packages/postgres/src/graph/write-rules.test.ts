import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { ACCESS_LEVELS, grants, inheritedLevel, type AccessLevel, type Actor, createCollection, createEdge, createNode, createPerson, deleteEdge, grantAccess, MAX_BELONGS_TO_DEPTH, revokeAccess } from '@inntak/access';
import { uuidv7 } from '@inntak/core';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';
import { createWebhook } from '@inntak/intake';

/**
 * Issue 11's attacks on the write rules, each as it was made: a write that raised its maker's
 * level (4), belongs_to cycles by race (8), deep chains that broke later grants (9), edges
 * into others' nodes (10), a lost demotion (12) and deadlocks answered 500 (14).
 */

let h: OpenTestDatabase;
type Person = Actor & { personId: string };

beforeAll(async () => {
  h = await openTestDatabase();
});
afterAll(async () => {
  await h.dispose();
});

async function person(subject: string): Promise<Person> {
  return { personId: (await createPerson(storesOn(h.db).graph, { subject })).id, isAdmin: false };
}

async function levelOf(subject: string, object: string): Promise<AccessLevel | null> {
  const row = await h.db.selectFrom('node_access').select('access').where('subject_id', '=', subject).where('object_id', '=', object).executeTakeFirst();
  return (row?.access as AccessLevel | undefined) ?? null;
}

/** Every row the subject holds, to compare before and after a write. */
async function rowsOf(subject: string): Promise<Map<string, AccessLevel>> {
  const rows = await h.db.selectFrom('node_access').select(['object_id', 'access']).where('subject_id', '=', subject).execute();
  return new Map(rows.map((r) => [r.object_id, r.access as AccessLevel]));
}

/**
 * The rule of docs/access.md: after a write by `actor`, nobody holds on a node that existed
 * before more than they held there before, unless the actor held at least that much there.
 */
async function expectNoRaise(actor: Person, subjects: string[], write: () => Promise<unknown>): Promise<void> {
  const existing = new Set((await h.db.selectFrom('nodes').select('id').execute()).map((r) => r.id));
  const before = new Map<string, Map<string, AccessLevel>>();
  for (const s of [actor.personId, ...subjects]) before.set(s, await rowsOf(s));
  await write().catch(() => undefined);
  for (const s of [actor.personId, ...subjects]) {
    for (const [object, level] of await rowsOf(s)) {
      if (!existing.has(object)) continue;
      const had = before.get(s)!.get(object) ?? null;
      const ceiling = before.get(actor.personId)!.get(object) ?? null;
      const allowed = grants(had, level) || grants(ceiling, level);
      expect({ subject: s, object, level, allowed }).toEqual({ subject: s, object, level, allowed: true });
    }
  }
}

describe('no write raises its maker above what they hold (issue 11, point 4)', () => {
  it('an admin of C linking C → E of their own stays admin of C, and the owner of C keeps it', async () => {
    const alice = await person('alice-4');
    const erin = await person('erin-4');
    const c = (await createCollection(storesOn(h.db).graph, { title: 'C', ownerId: alice.personId })).id;
    await grantAccess(storesOn(h.db).graph, alice, { subject_id: erin.personId, object_id: c, access: 'admin' });
    const e = (await createCollection(storesOn(h.db).graph, { title: 'E', ownerId: erin.personId })).id;

    await createEdge(storesOn(h.db).graph, erin, { source_id: c, target_id: e, edge_type: 'belongs_to' });

    expect(await levelOf(erin.personId, c)).toBe('admin');
    await expect(revokeAccess(storesOn(h.db).graph, erin, { subject_id: alice.personId, object_id: c })).rejects.toMatchObject({ code: 'forbidden' });
    expect(await levelOf(alice.personId, c)).toBe('owner');
  });

  it('the cap holds through the repair step and through rows added to E afterwards', async () => {
    const alice = await person('alice-4b');
    const erin = await person('erin-4b');
    const friend = await person('friend-4b');
    const c = (await createCollection(storesOn(h.db).graph, { title: 'C', ownerId: alice.personId })).id;
    await grantAccess(storesOn(h.db).graph, alice, { subject_id: erin.personId, object_id: c, access: 'admin' });
    const e = (await createCollection(storesOn(h.db).graph, { title: 'E', ownerId: erin.personId })).id;
    const { id: edge } = await createEdge(storesOn(h.db).graph, erin, { source_id: c, target_id: e, edge_type: 'belongs_to', metadata: { max_access: 'owner' } });
    await grantAccess(storesOn(h.db).graph, erin, { subject_id: friend.personId, object_id: e, access: 'owner' });
    expect(await levelOf(friend.personId, c)).toBe('admin');
    await sql`select inntak_propagate_belongs_to(${edge}::uuid)`.execute(h.db);
    expect([await levelOf(erin.personId, c), await levelOf(friend.personId, c)]).toEqual(['admin', 'admin']);
  });

  it('every granting path, tried by an admin, a member and a reader, raises nobody above its maker', async () => {
    const owner = await person('owner-4c');
    const target = (await createCollection(storesOn(h.db).graph, { title: 'T', ownerId: owner.personId })).id;
    const other = await person('other-4c');
    for (const held of ['admin', 'member', 'reader'] as const) {
      const actor = await person(`actor-4c-${held}`);
      await grantAccess(storesOn(h.db).graph, owner, { subject_id: actor.personId, object_id: target, access: held });
      const mine = (await createCollection(storesOn(h.db).graph, { title: 'mine', ownerId: actor.personId })).id;
      await grantAccess(storesOn(h.db).graph, actor, { subject_id: other.personId, object_id: mine, access: 'owner' });
      const subjects = [other.personId, owner.personId];
      const writes: Array<() => Promise<unknown>> = [
        () => createEdge(storesOn(h.db).graph, actor, { source_id: target, target_id: mine, edge_type: 'belongs_to' }),
        () => createEdge(storesOn(h.db).graph, actor, { source_id: mine, target_id: target, edge_type: 'belongs_to' }),
        () => createEdge(storesOn(h.db).graph, actor, { source_id: actor.personId, target_id: target, edge_type: 'owner' }),
        ...[{}, ...ACCESS_LEVELS.map((access) => ({ access }))].map(
          (metadata) => () => createEdge(storesOn(h.db).graph, actor, { source_id: actor.personId, target_id: target, edge_type: 'member_of', metadata }),
        ),
        ...ACCESS_LEVELS.flatMap((access) =>
          [actor.personId, other.personId].map((subject) => () => grantAccess(storesOn(h.db).graph, actor, { subject_id: subject, object_id: target, access })),
        ),
        () => createNode(storesOn(h.db).graph, actor, { node_kind: 'content', collection_id: target }),
        () => createWebhook(storesOn(h.db).webhookAdmin, actor, { collectionId: target }),
      ];
      for (const write of writes) {
        // Each write starts from the same standing: the actor holds `held` on the target.
        await grantAccess(storesOn(h.db).graph, owner, { subject_id: actor.personId, object_id: target, access: held });
        await expectNoRaise(actor, subjects, write);
        for (const edge of await h.db.selectFrom('edges').select('id').where('edge_type', '=', 'belongs_to').where('source_id', 'in', [target, mine]).execute()) {
          await deleteEdge(storesOn(h.db).graph, owner, { edge_id: edge.id }).catch(() => deleteEdge(storesOn(h.db).graph, actor, { edge_id: edge.id }));
        }
      }
    }
  });

  it('the SQL inntak_inherited_access agrees with inheritedLevel', async () => {
    for (const level of ACCESS_LEVELS) {
      for (const metadata of [{}, { max_access: 'nonsense' }, ...ACCESS_LEVELS.map((max_access) => ({ max_access }))]) {
        const { rows } = await sql<{ level: string }>`select inntak_inherited_access(${level}::access_level, ${JSON.stringify(metadata)}::jsonb)::text as level`.execute(h.db);
        expect([level, metadata, rows[0]!.level]).toEqual([level, metadata, inheritedLevel(level, metadata)]);
      }
    }
  });
});

describe('belongs_to cycles and depth (issue 11, points 8 and 9)', () => {
  it('parallel P → Q and Q → P: exactly one succeeds, the other is a cycle (409), never a database error', async () => {
    const owner = await person('cycle-8');
    for (let i = 0; i < 10; i++) {
      const p = (await createCollection(storesOn(h.db).graph, { title: 'P', ownerId: owner.personId })).id;
      const q = (await createCollection(storesOn(h.db).graph, { title: 'Q', ownerId: owner.personId })).id;
      const results = await Promise.allSettled([
        createEdge(storesOn(h.db).graph, owner, { source_id: p, target_id: q, edge_type: 'belongs_to' }),
        createEdge(storesOn(h.db).graph, owner, { source_id: q, target_id: p, edge_type: 'belongs_to' }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ code: 'conflict' });
    }
  });

  it(`a chain longer than ${MAX_BELONGS_TO_DEPTH} belongs_to edges is refused with 409, from either end`, async () => {
    const owner = await person('chain-9');
    const chain: string[] = [];
    for (let i = 0; i <= MAX_BELONGS_TO_DEPTH; i++) chain.push((await createCollection(storesOn(h.db).graph, { title: `L${i}`, ownerId: owner.personId })).id);
    for (let i = 1; i < chain.length; i++) await createEdge(storesOn(h.db).graph, owner, { source_id: chain[i]!, target_id: chain[i - 1]!, edge_type: 'belongs_to' });
    const below = (await createCollection(storesOn(h.db).graph, { title: 'below', ownerId: owner.personId })).id;
    const above = (await createCollection(storesOn(h.db).graph, { title: 'above', ownerId: owner.personId })).id;
    await expect(createEdge(storesOn(h.db).graph, owner, { source_id: below, target_id: chain.at(-1)!, edge_type: 'belongs_to' })).rejects.toMatchObject({ code: 'conflict' });
    await expect(createEdge(storesOn(h.db).graph, owner, { source_id: chain[0]!, target_id: above, edge_type: 'belongs_to' })).rejects.toMatchObject({ code: 'conflict' });
    // A content node (a leaf) is one more level too.
    await expect(createNode(storesOn(h.db).graph, owner, { node_kind: 'content' }).then((n) => createEdge(storesOn(h.db).graph, owner, { source_id: n.id, target_id: chain.at(-1)!, edge_type: 'belongs_to' }))).rejects.toMatchObject({ code: 'conflict' });
  });

  it('a 70-deep chain made before the limit still settles: a grant on its top reaches its bottom', async () => {
    const owner = await person('legacy-9');
    const chain: string[] = [];
    for (let i = 0; i < 71; i++) chain.push((await createCollection(storesOn(h.db).graph, { title: `D${i}`, ownerId: owner.personId })).id);
    // Inserted straight into the table, as a chain built before MAX_BELONGS_TO_DEPTH existed.
    await h.db
      .insertInto('edges')
      .values(chain.slice(1).map((id, i) => ({ id: uuidv7(), source_id: id, target_id: chain[i]!, edge_type: 'belongs_to', metadata: '{}', system: false, created_by: owner.personId })))
      .execute();
    const member = await person('legacy-9-member');
    await grantAccess(storesOn(h.db).graph, owner, { subject_id: member.personId, object_id: chain[0]!, access: 'reader' });
    expect(await levelOf(member.personId, chain.at(-1)!)).toBe('reader');
    await revokeAccess(storesOn(h.db).graph, owner, { subject_id: member.personId, object_id: chain[0]! });
    expect(await levelOf(member.personId, chain.at(-1)!)).toBeNull();
  });
});

describe('edges into others’ nodes (issue 11, point 10)', () => {
  it('a stranger may not attach an edge to a readable node; a member may; the owner may delete the member’s edge', async () => {
    const owner = await person('consent-owner');
    const stranger = await person('consent-stranger');
    const member = await person('consent-member');
    const target = (await createCollection(storesOn(h.db).graph, { title: 'open', ownerId: owner.personId, visibility: 'readable' })).id;
    const strangers = await createNode(storesOn(h.db).graph, stranger, { node_kind: 'content' });
    await expect(createEdge(storesOn(h.db).graph, stranger, { source_id: strangers.id, target_id: target, edge_type: 'observes' })).rejects.toMatchObject({ code: 'forbidden' });

    await grantAccess(storesOn(h.db).graph, owner, { subject_id: member.personId, object_id: target, access: 'member' });
    const members = await createNode(storesOn(h.db).graph, member, { node_kind: 'content' });
    const { id } = await createEdge(storesOn(h.db).graph, member, { source_id: members.id, target_id: target, edge_type: 'observes' });
    await revokeAccess(storesOn(h.db).graph, owner, { subject_id: member.personId, object_id: target });
    await deleteEdge(storesOn(h.db).graph, owner, { edge_id: id });
    expect(await h.db.selectFrom('edges').select('id').where('id', '=', id).executeTakeFirst()).toBeUndefined();
  });

  it('edge metadata over 16 KB, or nested deeper than 32, is refused', async () => {
    const owner = await person('meta-owner');
    const a = await createNode(storesOn(h.db).graph, owner, { node_kind: 'content' });
    const b = await createNode(storesOn(h.db).graph, owner, { node_kind: 'content' });
    await expect(createEdge(storesOn(h.db).graph, owner, { source_id: a.id, target_id: b.id, edge_type: 'observes', metadata: { blob: 'x'.repeat(17_000) } })).rejects.toMatchObject({
      code: 'invalid_input',
    });
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 5000; i++) deep = { d: deep };
    await expect(createEdge(storesOn(h.db).graph, owner, { source_id: a.id, target_id: b.id, edge_type: 'observes', metadata: deep })).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(createNode(storesOn(h.db).graph, owner, { node_kind: 'content', metadata: deep })).rejects.toMatchObject({ code: 'invalid_input' });
  });
});

describe('races on grants (issue 11, points 12 and 14)', () => {
  it('a demotion racing the subject’s own re-grant is not lost', async () => {
    const alice = await person('alice-12');
    const bob = await person('bob-12');
    const c = (await createCollection(storesOn(h.db).graph, { title: 'C', ownerId: alice.personId })).id;
    await grantAccess(storesOn(h.db).graph, alice, { subject_id: bob.personId, object_id: c, access: 'admin' });
    // A transaction holding the collection row (as an intake into it does) lines both writes up
    // behind it, so that each has started before either commits.
    const blocker = await h.pool.connect();
    await blocker.query('begin');
    await blocker.query('select id from nodes where id = $1 for key share', [c]);
    const demote = grantAccess(storesOn(h.db).graph, alice, { subject_id: bob.personId, object_id: c, access: 'reader' });
    await waitForLockWaiters(1);
    const regrant = grantAccess(storesOn(h.db).graph, bob, { subject_id: bob.personId, object_id: c, access: 'admin' });
    await waitForLockWaiters(2);
    await blocker.query('commit');
    blocker.release();
    const [demoted] = await Promise.allSettled([demote, regrant]);
    expect(demoted.status).toBe('fulfilled');
    expect(await levelOf(bob.personId, c)).toBe('reader');
  });

  it('many concurrent grants and edges on the same nodes all succeed: deadlocks are retried, never a database error', async () => {
    const owner = await person('dead-14');
    const c = (await createCollection(storesOn(h.db).graph, { title: 'C', ownerId: owner.personId })).id;
    const d = (await createCollection(storesOn(h.db).graph, { title: 'D', ownerId: owner.personId })).id;
    const people = await Promise.all(Array.from({ length: 8 }, (_, i) => person(`dead-14-${i}`)));
    const results = await Promise.allSettled(
      people.flatMap((p, i) => [
        grantAccess(storesOn(h.db).graph, owner, { subject_id: p.personId, object_id: i % 2 ? c : d, access: 'member' }),
        grantAccess(storesOn(h.db).graph, owner, { subject_id: p.personId, object_id: i % 2 ? d : c, access: 'reader' }),
        createNode(storesOn(h.db).graph, owner, { node_kind: 'content', collection_id: i % 2 ? c : d }),
      ]),
    );
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected').map((r) => String(r.reason?.code ?? r.reason));
    expect(failures.filter((code) => code !== 'conflict')).toEqual([]);
  });
});

async function waitForLockWaiters(count: number): Promise<void> {
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(h.db);
    if (rows[0]!.n >= count) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
