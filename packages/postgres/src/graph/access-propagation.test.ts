import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { ACCESS_LEVELS, levelGrantedBy, OPERATOR, type Actor, createCollection, createEdge, createNode, createPerson, deleteEdge, grantAccess, revokeAccess } from '@inntak/access';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';
import { uuidv7 } from '@inntak/core';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
let h: OpenTestDatabase;
let owner: Actor & { personId: string };

beforeAll(async () => {
  h = await openTestDatabase(quiet);
  owner = { personId: (await createPerson(storesOn(h.db).graph, { subject: 'owner' })).id, isAdmin: false };
});
afterAll(async () => {
  await h.dispose();
});

async function person(subject: string): Promise<Actor & { personId: string }> {
  return { personId: (await createPerson(storesOn(h.db).graph, { subject })).id, isAdmin: false };
}

async function levelOf(subject: string, object: string): Promise<string | null> {
  const row = await h.db.selectFrom('node_access').select('access').where('subject_id', '=', subject).where('object_id', '=', object).executeTakeFirst();
  return row?.access ?? null;
}

/** A collection of the owner's with one node in it and one node in a sub-collection. */
async function tree() {
  const collection = (await createCollection(storesOn(h.db).graph, { title: 'C', ownerId: owner.personId })).id;
  const sub = await createNode(storesOn(h.db).graph, owner, { node_kind: 'content', title: 'sub', collection_id: collection });
  const leaf = await createNode(storesOn(h.db).graph, owner, { node_kind: 'content', title: 'leaf' });
  await createEdge(storesOn(h.db).graph, owner, { source_id: leaf.id, target_id: sub.id, edge_type: 'belongs_to' });
  return { collection, sub: sub.id, leaf: leaf.id };
}

describe('access matrix', () => {
  it('an owner edge person → node grants owner on the node', async () => {
    const { collection } = await tree();
    expect(await levelOf(owner.personId, collection)).toBe('owner');
  });

  it('member_of person → collection grants member, and belongs_to copies it down to every node, transitively', async () => {
    const { collection, sub, leaf } = await tree();
    const reader = await person('m1');
    await createEdge(storesOn(h.db).graph, owner, { source_id: reader.personId, target_id: collection, edge_type: 'member_of' });
    expect([await levelOf(reader.personId, collection), await levelOf(reader.personId, sub), await levelOf(reader.personId, leaf)]).toEqual([
      'member',
      'member',
      'member',
    ]);
  });

  it('removing the granting edge removes what it granted, down the belongs_to edges', async () => {
    const { collection, leaf } = await tree();
    const member = await person('m2');
    const { id } = await createEdge(storesOn(h.db).graph, owner, { source_id: member.personId, target_id: collection, edge_type: 'member_of' });
    await deleteEdge(storesOn(h.db).graph, owner, { edge_id: id });
    expect([await levelOf(member.personId, collection), await levelOf(member.personId, leaf)]).toEqual([null, null]);
  });

  it('two grants, remove one: the other grant’s level remains', async () => {
    const { collection, sub } = await tree();
    const member = await person('m3');
    await grantAccess(storesOn(h.db).graph, owner, { subject_id: member.personId, object_id: collection, access: 'admin' });
    const direct = await grantAccess(storesOn(h.db).graph, owner, { subject_id: member.personId, object_id: sub, access: 'reader' });
    expect(await levelOf(member.personId, sub)).toBe('admin');
    await revokeAccess(storesOn(h.db).graph, owner, { subject_id: member.personId, object_id: collection });
    expect(await levelOf(member.personId, sub)).toBe('reader');
    const row = await h.db.selectFrom('node_access').select('via_edge').where('subject_id', '=', member.personId).where('object_id', '=', sub).executeTakeFirst();
    expect(row?.via_edge).toBe(direct.edge_id);
  });

  it('removing a belongs_to edge takes the inherited rows from the node and what belongs to it', async () => {
    const { collection, sub, leaf } = await tree();
    const member = await person('m4');
    await grantAccess(storesOn(h.db).graph, owner, { subject_id: member.personId, object_id: collection, access: 'member' });
    const belongs = await h.db.selectFrom('edges').select('id').where('source_id', '=', sub).where('edge_type', '=', 'belongs_to').executeTakeFirstOrThrow();
    await deleteEdge(storesOn(h.db).graph, owner, { edge_id: belongs.id });
    expect([await levelOf(member.personId, sub), await levelOf(member.personId, leaf)]).toEqual([null, null]);
    expect(await levelOf(owner.personId, sub)).toBe('owner');
  });

  it('grant_access replaces the subject’s level, and the new level flows down', async () => {
    const { collection, leaf } = await tree();
    const member = await person('m5');
    await grantAccess(storesOn(h.db).graph, owner, { subject_id: member.personId, object_id: collection, access: 'admin' });
    await grantAccess(storesOn(h.db).graph, owner, { subject_id: member.personId, object_id: collection, access: 'reader' });
    expect([await levelOf(member.personId, collection), await levelOf(member.personId, leaf)]).toEqual(['reader', 'reader']);
  });

  it('a member may not grant, an admin may not grant owner, an owner may', async () => {
    const { collection } = await tree();
    const member = await person('m6');
    const admin = await person('a6');
    const other = await person('o6');
    await grantAccess(storesOn(h.db).graph, owner, { subject_id: member.personId, object_id: collection, access: 'member' });
    await grantAccess(storesOn(h.db).graph, owner, { subject_id: admin.personId, object_id: collection, access: 'admin' });
    await expect(grantAccess(storesOn(h.db).graph, member, { subject_id: other.personId, object_id: collection, access: 'reader' })).rejects.toMatchObject({ code: 'forbidden' });
    await expect(grantAccess(storesOn(h.db).graph, admin, { subject_id: other.personId, object_id: collection, access: 'owner' })).rejects.toMatchObject({ code: 'forbidden' });
    await grantAccess(storesOn(h.db).graph, admin, { subject_id: other.personId, object_id: collection, access: 'member' });
    await grantAccess(storesOn(h.db).graph, owner, { subject_id: other.personId, object_id: collection, access: 'owner' });
    expect(await levelOf(other.personId, collection)).toBe('owner');
  });

  it('a stranger is told a hidden node does not exist rather than forbidden', async () => {
    const { collection } = await tree();
    const stranger = await person('s7');
    await expect(grantAccess(storesOn(h.db).graph, stranger, { subject_id: stranger.personId, object_id: collection, access: 'member' })).rejects.toMatchObject({
      code: 'not_found',
      detail: 'object_id',
    });
  });

  it('a belongs_to edge that would close a cycle is refused', async () => {
    const { collection, leaf } = await tree();
    await expect(createEdge(storesOn(h.db).graph, OPERATOR, { source_id: collection, target_id: leaf, edge_type: 'belongs_to' })).rejects.toMatchObject({ code: 'conflict' });
  });

  it('the SQL access_granted_by agrees with levelGrantedBy for every edge type and level', async () => {
    const cases = ['owner', 'member_of', 'belongs_to', 'host_of'].flatMap((type) => [{}, ...ACCESS_LEVELS.map((access) => ({ access }))].map((metadata) => ({ type, metadata })));
    for (const { type, metadata } of cases) {
      const { rows } = await sql<{ level: string | null }>`select access_granted_by(${type}, ${JSON.stringify(metadata)}::jsonb)::text as level`.execute(h.db);
      expect([type, metadata, rows[0]!.level]).toEqual([type, metadata, levelGrantedBy(type, metadata)]);
    }
  });

  it('a revoke racing an intake into the collection leaves the new node without the revoked row', async () => {
    const { collection } = await tree();
    const member = await person('racer');
    await grantAccess(storesOn(h.db).graph, owner, { subject_id: member.personId, object_id: collection, access: 'member' });
    let copied!: () => void;
    let release!: () => void;
    const rowsCopied = new Promise<void>((resolve) => (copied = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const nodeId = uuidv7();
    const edgeId = uuidv7();
    // An intake that has copied the collection's rows (the member's among them) but not committed.
    // (inntak_intake_write, held inside a transaction so the revoke can run before it commits).
    const intake = h.db.transaction().execute(async (trx) => {
      await sql`select inntak_intake_write(${nodeId}, 'content', null, null, 'hidden', '{}', null,
        ${edgeId}, ${nodeId}, ${collection}, 'belongs_to', '{}', true, null,
        ${uuidv7()}, ${uuidv7()}, now(), null, null, 0, 0)`.execute(trx);
      copied();
      await released;
    });
    await rowsCopied;
    const revoke = revokeAccess(storesOn(h.db).graph, owner, { subject_id: member.personId, object_id: collection });
    await waitForLockWait(revoke);
    release();
    await Promise.all([intake, revoke]);
    expect(await levelOf(member.personId, nodeId)).toBeNull();
    expect(await levelOf(owner.personId, nodeId)).toBe('owner');
  });
});

/** Resolves once some session of this database waits for a row lock, or `work` has settled. */
async function waitForLockWait(work: Promise<unknown>): Promise<void> {
  let settled = false;
  void work.finally(() => (settled = true)).catch(() => {});
  while (!settled) {
    const { rows } = await sql<{ waiting: boolean }>`
      select exists (select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock') as waiting`.execute(h.db);
    if (rows[0]!.waiting) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
