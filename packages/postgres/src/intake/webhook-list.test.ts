import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { createCollection, createEdge, createPerson, grantAccess, OPERATOR, type Actor } from '@inntak/access';
import { createWebhook, listWebhooks, WEBHOOK_PAGE } from '@inntak/intake';
import { openDatabase } from '../platform/index.js';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';

// listWebhooks (packages/intake webhook-admin.ts) over the real store: a keyset page of the
// webhooks the actor administers, with the directory's limit and cursor.
const quiet = { error() {}, warn() {}, info() {}, debug() {} };
let h: OpenTestDatabase;
let owner: Actor, reader: Actor, otherAdmin: Actor;
let read: string, mine: string;
/** The webhooks of `read` (owner's), in the order they were made. */
const made: string[] = [];

beforeAll(async () => {
  h = await openTestDatabase(quiet);
  const graph = storesOn(h.db).graph;
  const person = async (subject: string): Promise<Actor> => ({ personId: (await createPerson(graph, { subject })).id, isAdmin: false });
  [owner, reader, otherAdmin] = [await person('eier'), await person('leser'), await person('annen')];
  read = (await createCollection(graph, { title: 'Lest', ownerId: owner.personId! })).id;
  mine = (await createCollection(graph, { title: 'Egen', ownerId: otherAdmin.personId! })).id;
  await grantAccess(graph, OPERATOR, { subject_id: reader.personId!, object_id: read, access: 'reader' });
  await grantAccess(graph, OPERATOR, { subject_id: otherAdmin.personId!, object_id: read, access: 'reader' });
  await grantAccess(graph, OPERATOR, { subject_id: owner.personId!, object_id: mine, access: 'member' });
  for (let i = 0; i < 7; i++) made.push((await createWebhook(storesOn(h.db).webhookAdmin, owner, { collectionId: read })).id);
});
afterAll(() => h.dispose());

/** Every page of the actor's webhooks, `limit` at a time, as the pages came. */
async function allPages(actor: Actor, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await listWebhooks(storesOn(h.db).webhookAdmin, actor, { limit, cursor });
    pages.push(page.webhooks.map((w) => w.id));
    if (page.next_cursor === null) return pages;
    expect(page.next_cursor).toBe(page.webhooks.at(-1)!.id);
    cursor = page.next_cursor;
  }
}

describe('listing the webhooks one administers, a page at a time', () => {
  it('a caller with more webhooks than one page gets them all over the pages, each once, in the order they were made', async () => {
    expect(await allPages(owner, 3)).toEqual([made.slice(0, 3), made.slice(3, 6), made.slice(6)]);
    // A full last page: the next one is empty and has no cursor.
    expect(await allPages(owner, 7)).toEqual([made]);
  });

  it('the default page is the maximum, 200, so a call without a limit still answers a list of that size whole', async () => {
    expect(WEBHOOK_PAGE).toEqual({ default: 200, max: 200 });
    const page = await listWebhooks(storesOn(h.db).webhookAdmin, owner, { limit: WEBHOOK_PAGE.default });
    expect(page).toEqual({ webhooks: made.map((id) => expect.objectContaining({ id, collection_id: read })), next_cursor: null });
  });

  it('refuses a limit above 200 (or below 1, or not whole) and a cursor that is not a UUID, as the directory does', async () => {
    const store = storesOn(h.db).webhookAdmin;
    for (const limit of [201, 0, 1.5]) {
      await expect(listWebhooks(store, owner, { limit })).rejects.toMatchObject({ code: 'invalid_input', detail: 'limit: må være et helt tall fra 1 til 200' });
    }
    await expect(listWebhooks(store, owner, { limit: 1, cursor: 'siste' })).rejects.toMatchObject({ code: 'invalid_input', detail: 'cursor: forventet UUID' });
  });

  it('a page only holds webhooks the caller administers: a webhook of a collection the caller only reads never appears', async () => {
    expect(await allPages(reader, 2)).toEqual([[]]);
    const own = (await createWebhook(storesOn(h.db).webhookAdmin, otherAdmin, { collectionId: mine })).id;
    expect(await allPages(otherAdmin, 1)).toEqual([[own]]);
    expect((await allPages(OPERATOR, 200)).flat()).toEqual([...made, own]);
  });

  it('a webhook with a second belongs_to is listed once, under its first collection, and not to an admin of the second only', async () => {
    // The owner administers the webhook and is a member of `mine`, whose admin only reads `read`.
    const webhook = made[0]!;
    await createEdge(storesOn(h.db).graph, owner, { source_id: webhook, target_id: mine, edge_type: 'belongs_to' });
    const ownerPage = await listWebhooks(storesOn(h.db).webhookAdmin, owner, { limit: 200 });
    expect(ownerPage.webhooks.filter((w) => w.id === webhook)).toEqual([expect.objectContaining({ collection_id: read })]);
    expect((await allPages(otherAdmin, 200)).flat()).not.toContain(webhook);
  });
});

describe('what a page costs', () => {
  it('a page of 2 walks a few webhooks, not every one: the query stops at the limit in id order', async () => {
    const many = await createCollection(storesOn(h.db).graph, { title: 'Mange', ownerId: owner.personId! });
    for (let i = 0; i < 150; i++) await createWebhook(storesOn(h.db).webhookAdmin, owner, { collectionId: many.id });
    await sql`analyze`.execute(h.db);
    // One connection, its counters flushed before each read. The rows of `nodes` read: the
    // webhooks walked and their collections. (Each webhook's belongs_to is read by its source;
    // on a table of a few pages like this one the planner scans it, on a real one it takes the
    // (source_id, edge_type) index, so edges are not counted here.)
    const one = openDatabase({ connectionString: h.url, logger: quiet, max: 1 });
    try {
      const rowsRead = async () => {
        await sql`select pg_stat_force_next_flush()`.execute(one.db);
        const { rows } = await sql<{ n: string }>`select seq_tup_read + coalesce(idx_tup_fetch, 0) as n from pg_stat_user_tables where relname = 'nodes'`.execute(one.db);
        return Number(rows[0]!.n);
      };
      for (const actor of [OPERATOR, owner]) {
        const before = await rowsRead();
        const page = await listWebhooks(storesOn(one.db).webhookAdmin, actor, { limit: 2 });
        const cost = (await rowsRead()) - before;
        expect(page.webhooks).toHaveLength(2);
        // The page's 2 webhooks and the one past it, the few other nodes before them in id order,
        // their collection: a dozen at most, where reading every webhook is over 150.
        expect(cost).toBeLessThan(20);
      }
    } finally {
      await one.close();
    }
  });
});
