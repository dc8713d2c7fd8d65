import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createCollection, createNode, createPerson, inTransaction, requireLevel, type Actor } from '@inntak/access';
import { AppError } from '@inntak/core';
import { openTestDatabase, type OpenTestDatabase } from '../testing/index.js';
import { PostgresGraphStore, PostgresGraphTx } from './graph-store.js';

/**
 * The graph use cases (packages/access) over the real port: what the adapter promises them
 * (one transaction, retries of a deadlock, the read filter in levelOn).
 */

let h: OpenTestDatabase;
let store: PostgresGraphStore;

beforeAll(async () => {
  h = await openTestDatabase();
  store = new PostgresGraphStore(h.db);
});
afterAll(async () => {
  await h.dispose();
});

async function person(subject: string): Promise<Actor & { personId: string }> {
  return { personId: (await createPerson(store, { subject })).id, isAdmin: false };
}

describe('PostgresGraphStore', () => {
  it('runs use cases inside one store transaction: a later failure undoes the node and its owner edge', async () => {
    const alice = await person('store-alice');
    let made: string | undefined;
    await expect(
      store.transaction(async (tx) => {
        made = (await createNode(inTransaction(tx), alice, { node_kind: 'content', title: 'rolled back' })).id;
        throw new Error('a later step failed');
      }),
    ).rejects.toThrow('a later step failed');
    expect(made).toBeDefined();
    expect(await h.db.selectFrom('nodes').select('id').where('id', '=', made!).executeTakeFirst()).toBeUndefined();
    expect(await h.db.selectFrom('edges').select('id').where('target_id', '=', made!).executeTakeFirst()).toBeUndefined();
  });

  it('runs a transaction the database aborted as a deadlock again, and answers 409 after five attempts', async () => {
    let attempts = 0;
    const deadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    const failure = await store
      .transaction(async () => {
        attempts++;
        throw deadlock;
      })
      .catch((err: unknown) => err);
    expect(attempts).toBe(5);
    expect(failure).toBeInstanceOf(AppError);
    expect(failure).toMatchObject({ code: 'conflict', detail: 'samtidige endringer; prøv igjen' });
  });

  it('gives requireLevel the read filter: a hidden node is 404 to a stranger, a visible one 403 below the level', async () => {
    const owner = await person('store-owner');
    const stranger = await person('store-stranger');
    const hidden = await createCollection(store, { title: 'hidden', ownerId: owner.personId });
    const open = await createCollection(store, { title: 'open', ownerId: owner.personId, visibility: 'open' });
    const tx = new PostgresGraphTx(h.db);
    await expect(requireLevel(tx, stranger, hidden.id, null, 'node_id')).rejects.toMatchObject({ code: 'not_found', detail: 'node_id' });
    await expect(requireLevel(tx, stranger, open.id, 'member', 'node_id')).rejects.toMatchObject({ code: 'forbidden' });
    expect(await requireLevel(tx, stranger, open.id, null, 'node_id')).toEqual({ id: open.id, node_kind: 'collection', level: null });
    expect(await requireLevel(tx, owner, hidden.id, 'owner', 'node_id')).toEqual({ id: hidden.id, node_kind: 'collection', level: 'owner' });
    // A system administrator sees every node, at owner.
    expect(await requireLevel(tx, { personId: stranger.personId, isAdmin: true }, hidden.id, 'owner', 'node_id')).toMatchObject({ level: 'owner' });
  });
});
