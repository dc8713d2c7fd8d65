import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppError } from '@inntak/core';
import { listCollections, listPersons, OPERATOR, createCollection, createPerson, grantAccess } from '@inntak/access';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';
import { PostgresDirectoryReads } from './directory-reads.js';

// Issue 39 (CLI): the directory's use cases (packages/access directory.ts) over the real reads.
const quiet = { error() {}, warn() {}, info() {}, debug() {} };
let h: OpenTestDatabase;
let reads: PostgresDirectoryReads;
let alice: string, bob: string, carol: string;
let hidden: string, shared: string, open: string;

beforeAll(async () => {
  h = await openTestDatabase(quiet);
  reads = new PostgresDirectoryReads(h.db);
  alice = (await createPerson(storesOn(h.db).graph, { subject: 'alice', name: 'Alice' })).id;
  bob = (await createPerson(storesOn(h.db).graph, { subject: 'bob', issuer: 'https://id.example' })).id;
  carol = (await createPerson(storesOn(h.db).graph, { subject: 'carol', admin: true })).id;
  hidden = (await createCollection(storesOn(h.db).graph, { title: 'Skjult', ownerId: alice })).id;
  shared = (await createCollection(storesOn(h.db).graph, { title: 'Delt', ownerId: alice })).id;
  open = (await createCollection(storesOn(h.db).graph, { title: 'Åpen', ownerId: alice, visibility: 'open' })).id;
  await grantAccess(storesOn(h.db).graph, OPERATOR, { subject_id: bob, object_id: shared, access: 'reader' });
});
afterAll(() => h.dispose());

describe('listing persons', () => {
  it('shows a system administrator every person in the order they were added, with identities and whether an administrator', async () => {
    expect(await listPersons(reads, OPERATOR, { limit: 50 })).toEqual({
      persons: [
        { id: alice, name: 'Alice', admin: false, identities: [{ issuer: '', subject: 'alice' }], created_at: expect.any(Date) },
        { id: bob, name: null, admin: false, identities: [{ issuer: 'https://id.example', subject: 'bob' }], created_at: expect.any(Date) },
        { id: carol, name: null, admin: true, identities: [{ issuer: '', subject: 'carol' }], created_at: expect.any(Date) },
      ],
      next_cursor: null,
    });
  });

  it('goes page by page: next_cursor is the last id of a full page, and the last page has none', async () => {
    const first = await listPersons(reads, OPERATOR, { limit: 2 });
    expect(first.persons.map((p) => p.id)).toEqual([alice, bob]);
    expect(first.next_cursor).toBe(bob);
    const second = await listPersons(reads, OPERATOR, { limit: 2, cursor: first.next_cursor! });
    expect(second).toEqual({ persons: [expect.objectContaining({ id: carol })], next_cursor: null });
  });

  it('is refused to a person who is no system administrator', async () => {
    await expect(listPersons(reads, { personId: bob, isAdmin: false }, { limit: 50 })).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('refuses a page outside 1–200 and a cursor that is no UUID, reading nothing', async () => {
    for (const limit of [0, 201, 1.5]) await expect(listPersons(reads, OPERATOR, { limit })).rejects.toBeInstanceOf(AppError);
    await expect(listPersons(reads, OPERATOR, { limit: 1, cursor: 'nope' })).rejects.toMatchObject({ code: 'invalid_input', detail: 'cursor: forventet UUID' });
  });
});

describe('listing collections', () => {
  it('shows a system administrator every collection', async () => {
    const { collections } = await listCollections(reads, OPERATOR, { limit: 50 });
    expect(collections.map((c) => [c.title, c.publication])).toEqual([
      ['Skjult', null],
      ['Delt', null],
      ['Åpen', null],
    ]);
  });

  it('shows a person what the read filter lets them see: their own, the ones granted to them, the open ones', async () => {
    const ids = async (personId: string) => (await listCollections(reads, { personId, isAdmin: false }, { limit: 50 })).collections.map((c) => c.id);
    expect(await ids(alice)).toEqual([hidden, shared, open]);
    expect(await ids(bob)).toEqual([shared, open]);
    const dave = (await createPerson(storesOn(h.db).graph, { subject: 'dave' })).id;
    expect(await ids(dave)).toEqual([open]);
  });

  it('pages the person’s own view: the cursor continues after the page’s last visible collection', async () => {
    const first = await listCollections(reads, { personId: bob, isAdmin: false }, { limit: 1 });
    expect(first).toEqual({ collections: [expect.objectContaining({ id: shared })], next_cursor: shared });
    expect((await listCollections(reads, { personId: bob, isAdmin: false }, { limit: 1, cursor: shared })).collections.map((c) => c.id)).toEqual([open]);
  });
});
