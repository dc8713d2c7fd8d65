import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { uuidv7 } from '@inntak/core';
import type { Visibility } from '@inntak/graph';
import { PostgresNodeQueryStore } from '@inntak/postgres/graph';
import { sql } from 'kysely';
import { OWNER_SUBJECT, setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { createCollection, createPerson } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

let ctx: TestContext;
let app: Express;
let memberId: string, strangerId: string;
let webhook: { id: string; token: string; edgeId: string };
const HOUR = 3_600_000;
const T0 = Date.parse('2026-03-01T00:00:00Z');

beforeAll(async () => {
  ctx = await setupTestContext();
  app = ctx.app();
  // member: a reader row on the owner's collection, so on everything that belongs to it.
  memberId = (await createPerson(storesOn(ctx.database.db).graph, { subject: 'member' })).id;
  await ctx.database.db.insertInto('node_access').values({ subject_id: memberId, object_id: ctx.collectionId, access: 'reader', via_edge: null }).execute();
  strangerId = (await createPerson(storesOn(ctx.database.db).graph, { subject: 'stranger' })).id;
  webhook = await ctx.addWebhook();
});
afterAll(() => ctx.close());

interface NodeJson {
  id: string;
  node_kind: string;
  title: string | null;
  content: string | null;
  visibility: Visibility;
  metadata: Record<string, unknown>;
  created_by: string | null;
  created_at: string;
}

async function get(subject: string, params: Record<string, string | number> = {}) {
  return request(app)
    .get('/query/nodes')
    .query(params)
    .set('Authorization', `Bearer ${await ctx.tokenFor(subject)}`);
}

async function ids(subject: string, params: Record<string, string | number> = {}): Promise<string[]> {
  const res = await get(subject, params);
  expect(res.status).toBe(200);
  return (res.body.nodes as NodeJson[]).map((n) => n.id);
}

/** Every page of a query, following next_cursor. */
async function allPages(subject: string, params: Record<string, string | number>): Promise<NodeJson[]> {
  const seen: NodeJson[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page++) {
    const res = await get(subject, cursor ? { ...params, cursor } : params);
    expect(res.status).toBe(200);
    seen.push(...(res.body.nodes as NodeJson[]));
    cursor = res.body.next_cursor as string | null;
    if (!cursor) return seen;
  }
  throw new Error('more than 100 pages');
}

let clock = 0;
/** A node created `at` (default: the next hour after the previous one), with a UUIDv7 of that time. */
async function addNode(input: {
  title?: string | null;
  content?: string | null;
  visibility?: Visibility;
  kind?: string;
  createdBy?: string | null;
  at?: number;
  metadata?: Record<string, unknown>;
  inCollection?: string;
}): Promise<string> {
  const at = input.at ?? T0 + ++clock * HOUR;
  const id = uuidv7(at);
  await ctx.database.db
    .insertInto('nodes')
    .values({
      id,
      node_kind: input.kind ?? 'content',
      title: input.title ?? null,
      content: input.content ?? null,
      visibility: input.visibility ?? 'hidden',
      metadata: JSON.stringify(input.metadata ?? {}),
      created_by: input.createdBy === undefined ? ctx.ownerId : input.createdBy,
      created_at: new Date(at),
    })
    .execute();
  if (input.inCollection) {
    await ctx.database.db
      .insertInto('edges')
      .values({ id: uuidv7(), source_id: id, target_id: input.inCollection, edge_type: 'belongs_to', metadata: '{}', created_by: null })
      .execute();
  }
  return id;
}

describe('GET /query/nodes needs a valid token', () => {
  it('answers 401 Mangler Authorization-header without the header', async () => {
    const res = await request(app).get('/query/nodes');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Mangler Authorization-header' });
  });

  it('answers 401 Ukjent brukeridentitet for an unknown subject', async () => {
    const res = await get('nobody-we-know');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Ukjent brukeridentitet' });
  });
});

describe('rows are filtered by the caller\'s access', () => {
  let hiddenId: string;
  beforeAll(async () => {
    // Through the real intake: a hidden content node in the collection, with its access rows.
    const res = await request(app).post(`/api/webhook/${webhook.token}`).send({ title: 'Hemmelig lansering', content: 'kodeord blåbær' });
    expect(res.status).toBe(200);
    hiddenId = res.body.node_id as string;
  });

  it('a reader without access cannot see a hidden node through any query', async () => {
    const probes: Array<Record<string, string | number>> = [
      {},
      { q: 'hemmelig' },
      { q: 'blåbær' },
      { visibility: 'hidden' },
      { node_kind: 'content' },
      { created_by: webhook.id },
      { collection: ctx.collectionId },
      { created_from: '2000-01-01', created_before: '2100-01-01' },
      { q: 'kodeord', collection: ctx.collectionId, visibility: 'hidden', node_kind: 'content', created_by: webhook.id },
    ];
    for (const params of probes) {
      const everything = await allPages('stranger', { ...params, limit: 2 });
      expect(everything.map((n) => n.id)).not.toContain(hiddenId);
    }
  });

  it('the creator\'s collection owner and a reader with an access-matrix row see the hidden node in full', async () => {
    for (const subject of [OWNER_SUBJECT, 'member']) {
      const res = await get(subject, { q: 'hemmelig' });
      const found = (res.body.nodes as NodeJson[]).find((n) => n.id === hiddenId);
      expect(found).toMatchObject({ title: 'Hemmelig lansering', content: 'kodeord blåbær', visibility: 'hidden', created_by: webhook.id });
      expect(found!.metadata).toMatchObject({ source: 'webhook', webhook_id: webhook.id });
    }
  });

  it('the creator of a hidden node sees it without an access row', async () => {
    const own = await addNode({ title: 'eget utkast', createdBy: strangerId });
    expect(await ids('stranger', { q: 'utkast' })).toEqual([own]);
    expect(await ids('member', { q: 'utkast' })).toEqual([]);
  });

  it('a discoverable node appears to everyone as a summary: no content, no metadata', async () => {
    const id = await addNode({ title: 'synlig tittel', content: 'skjult innhold', visibility: 'discoverable', metadata: { k: 'v' } });
    const res = await get('stranger', { q: 'synlig' });
    expect(res.body.nodes).toEqual([
      expect.objectContaining({ id, title: 'synlig tittel', content: null, metadata: {}, visibility: 'discoverable', created_by: ctx.ownerId }),
    ]);
    const owners = await get(OWNER_SUBJECT, { q: 'synlig' });
    expect(owners.body.nodes[0]).toMatchObject({ id, content: 'skjult innhold', metadata: { k: 'v' } });
  });

  it('readable and open nodes are seen in full by every known caller', async () => {
    const readable = await addNode({ title: 'lesbar nyhet', content: 'alt', visibility: 'readable' });
    const open = await addNode({ title: 'åpen nyhet', content: 'alt', visibility: 'open' });
    const res = await get('stranger', { q: 'nyhet' });
    expect((res.body.nodes as NodeJson[]).map((n) => [n.id, n.content]).sort()).toEqual([[open, 'alt'], [readable, 'alt']].sort());
  });

  it('a webhook\'s token is shown to its owner and redacted for a reader', async () => {
    const ownerView = (await get(OWNER_SUBJECT, { node_kind: 'webhook' })).body.nodes as NodeJson[];
    expect(ownerView.find((n) => n.id === webhook.id)?.metadata).toEqual({ token: webhook.token });
    const readerView = (await get('member', { node_kind: 'webhook' })).body.nodes as NodeJson[];
    expect(readerView.find((n) => n.id === webhook.id)?.metadata).toEqual({});
    expect(JSON.stringify(readerView)).not.toContain(webhook.token);
    expect((await get('stranger', { node_kind: 'webhook' })).body.nodes).toEqual([]);
  });
});

describe('ordering and keyset pagination', () => {
  let tagged: string[];
  let ownersHidden: string;
  beforeAll(async () => {
    tagged = [];
    for (let i = 0; i < 11; i++) {
      const visibility: Visibility = (['open', 'hidden', 'readable', 'discoverable'] as const)[i % 4];
      // The hidden ones are the stranger's own.
      tagged.push(await addNode({ title: `sidevis ${i}`, kind: 'melding', visibility, createdBy: i % 4 === 1 ? strangerId : ctx.ownerId }));
    }
    ownersHidden = await addNode({ title: 'sidevis skjult', kind: 'melding', visibility: 'hidden' });
  });

  it('without a search term, nodes come newest first (id order, UUIDv7 = creation order)', async () => {
    const ownerSees = [...tagged.filter((_, i) => i % 4 !== 1), ownersHidden].reverse();
    expect(await ids(OWNER_SUBJECT, { node_kind: 'melding', limit: 100 })).toEqual(ownerSees);
  });

  it('paging through all results yields each visible row exactly once', async () => {
    for (const limit of [1, 2, 3, 5, 100]) {
      const pages = await allPages('stranger', { node_kind: 'melding', limit });
      expect(pages.map((n) => n.id)).toEqual([...tagged].reverse());
    }
  });

  it('the last page has next_cursor null', async () => {
    const res = await get('stranger', { node_kind: 'melding', limit: 100 });
    expect(res.body.next_cursor).toBeNull();
  });

  it('a ranked search pages by rank, then id, yielding each matching row exactly once even when ranks tie', async () => {
    // Same text, same rank: only the id breaks the tie. Title hits outrank content hits.
    const tied: string[] = [];
    for (let i = 0; i < 7; i++) tied.push(await addNode({ content: 'likerangert ord', visibility: 'open' }));
    const titled = await addNode({ title: 'likerangert', visibility: 'open' });
    for (const limit of [1, 2, 3, 100]) {
      const pages = await allPages('stranger', { q: 'likerangert', limit });
      expect(pages.map((n) => n.id)).toEqual([titled, ...[...tied].reverse()]);
    }
  });
});

describe('full-text search', () => {
  it('matches words in title or content, case-folded, ranking a title hit above a content hit', async () => {
    const inContent = await addNode({ title: 'annet', content: 'Deploy av Tjenesten feilet', visibility: 'open' });
    const inTitle = await addNode({ title: 'Tjenesten er nede', content: 'se logg', visibility: 'open' });
    await addNode({ title: 'uten treff', content: 'ingenting', visibility: 'open' });
    expect(await ids('stranger', { q: 'TJENESTEN' })).toEqual([inTitle, inContent]);
  });

  it('finds a node by its new words after its title or content changes, and no longer by the old', async () => {
    const id = await addNode({ title: 'førsteutkast', content: 'gammel tekst', visibility: 'open' });
    await ctx.database.db.updateTable('nodes').set({ title: 'ferdigversjon', content: 'ny tekst' }).where('id', '=', id).execute();
    expect(await ids('stranger', { q: 'ferdigversjon' })).toEqual([id]);
    expect(await ids('stranger', { q: 'førsteutkast' })).toEqual([]);
    expect(await ids('stranger', { q: 'gammel' })).toEqual([]);
  });

  it('takes web-search syntax: quoted phrases, or, and -exclusion', async () => {
    const a = await addNode({ title: 'rød bil', visibility: 'open' });
    const b = await addNode({ title: 'rød båt', visibility: 'open' });
    const c = await addNode({ title: 'bil rød', visibility: 'open' });
    expect((await ids('stranger', { q: '"rød bil"' })).sort()).toEqual([a]);
    expect((await ids('stranger', { q: 'rød -båt' })).sort()).toEqual([a, c].sort());
    expect((await ids('stranger', { q: 'båt or bil' })).sort()).toEqual([a, b, c].sort());
  });
});

describe('filters', () => {
  let other: string;
  let inOther: string, alsoInOther: string, outside: string;
  beforeAll(async () => {
    other = (await createCollection(storesOn(ctx.database.db).graph, { title: 'Annen', ownerId: ctx.ownerId })).id;
    inOther = await addNode({ title: 'filtrert a', kind: 'media', visibility: 'open', inCollection: other, at: Date.parse('2026-06-01T10:00:00Z') });
    alsoInOther = await addNode({ title: 'filtrert b', kind: 'communication', visibility: 'readable', inCollection: other, at: Date.parse('2026-06-02T00:00:00Z'), createdBy: strangerId });
    outside = await addNode({ title: 'filtrert c', kind: 'media', visibility: 'discoverable', at: Date.parse('2026-06-03T00:00:00Z') });
  });

  it('collection: nodes with a belongs_to edge to it', async () => {
    expect(await ids('stranger', { collection: other })).toEqual([alsoInOther, inOther]);
  });

  it('node_kind: one kind, or several comma-separated or repeated', async () => {
    expect(await ids('stranger', { q: 'filtrert', node_kind: 'media' })).toEqual(expect.arrayContaining([inOther, outside]));
    expect((await ids('stranger', { q: 'filtrert', node_kind: 'media,communication' })).sort()).toEqual([inOther, alsoInOther, outside].sort());
    const repeated = await request(app)
      .get('/query/nodes?q=filtrert&node_kind=media&node_kind=communication')
      .set('Authorization', `Bearer ${await ctx.tokenFor('stranger')}`);
    expect(repeated.body.nodes).toHaveLength(3);
  });

  it('visibility: only nodes of the given visibilities', async () => {
    expect(await ids('stranger', { q: 'filtrert', visibility: 'discoverable,readable' })).toEqual([outside, alsoInOther]);
  });

  it('created_by: only nodes that person or webhook created', async () => {
    expect(await ids('stranger', { q: 'filtrert', created_by: strangerId })).toEqual([alsoInOther]);
  });

  it('created_from is inclusive and created_before exclusive', async () => {
    expect(await ids('stranger', { created_from: '2026-06-01T10:00:00Z', created_before: '2026-06-03T00:00:00Z' })).toEqual([alsoInOther, inOther]);
    expect(await ids('stranger', { created_from: '2026-06-02', created_before: '2026-06-04' })).toEqual([outside, alsoInOther]);
  });
});

describe('invalid parameters answer 400 Ugyldig forespørsel: <field>: <problem>', () => {
  const cases: Array<[string, Record<string, string | number>, RegExp]> = [
    ['limit above 100', { limit: 101 }, /^Ugyldig forespørsel: limit: /],
    ['limit 0', { limit: 0 }, /^Ugyldig forespørsel: limit: /],
    ['limit not a number', { limit: 'mange' }, /^Ugyldig forespørsel: limit: /],
    ['an unknown visibility', { visibility: 'secret' }, /^Ugyldig forespørsel: visibility\.0: /],
    ['created_by not a UUID', { created_by: 'bob' }, /^Ugyldig forespørsel: created_by: /],
    ['collection not a UUID', { collection: '42' }, /^Ugyldig forespørsel: collection: /],
    ['a created_from that is no date', { created_from: 'i går' }, /^Ugyldig forespørsel: created_from: /],
    ['an empty search', { q: '   ' }, /^Ugyldig forespørsel: q: /],
    ['an unknown parameter', { kind: 'content' }, /^Ugyldig forespørsel: kind: /],
    ['a cursor not made by this endpoint', { cursor: 'abc' }, /^Ugyldig forespørsel: cursor: /],
  ];
  for (const [name, params, error] of cases) {
    it(name, async () => {
      const res = await get(OWNER_SUBJECT, params);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(error);
    });
  }

  it('a listing\'s cursor given to a search (or back)', async () => {
    await addNode({ title: 'markør', visibility: 'open' });
    await addNode({ title: 'markør', visibility: 'open' });
    const listing = await get(OWNER_SUBJECT, { limit: 1 });
    const search = await get(OWNER_SUBJECT, { q: 'markør', limit: 1 });
    const mixed1 = await get(OWNER_SUBJECT, { q: 'markør', cursor: listing.body.next_cursor as string });
    const mixed2 = await get(OWNER_SUBJECT, { cursor: search.body.next_cursor as string });
    expect([mixed1.status, mixed2.status]).toEqual([400, 400]);
    expect(mixed1.body.error).toMatch(/^Ugyldig forespørsel: cursor: /);
  });

  it('a search with more matches than one window pages on through its cursor to the last match, each once', async () => {
    // SEARCH_WINDOW is 500: 510 matches make a second window, whose cursor names the window.
    await sql`insert into nodes (id, node_kind, title, content, visibility, metadata, created_by)
      select gen_random_uuid(), 'content', 'vindusord ' || i, null, 'open', '{}', null from generate_series(1, 510) i`.execute(ctx.database.db);
    const seen = await allPages(OWNER_SUBJECT, { q: 'vindusord', limit: 100 });
    expect(seen).toHaveLength(510);
    expect(new Set(seen.map((n) => n.id)).size).toBe(510);
  });

  it("a search's cursor is bound to its words and filters: another query's (other words, a collection, a filter) answers 400; another page size is fine", async () => {
    await addNode({ title: 'bundet', visibility: 'open' });
    await addNode({ title: 'bundet', visibility: 'open' });
    const first = await get(OWNER_SUBJECT, { q: 'bundet', limit: 1 });
    const cursor = first.body.next_cursor as string;
    const others: Array<Record<string, string>> = [{ q: 'annet' }, { q: 'bundet', visibility: 'open' }, { q: 'bundet', collection: '019a5f3e-0000-7000-8000-000000000000' }];
    for (const other of others) {
      const res = await get(OWNER_SUBJECT, { ...other, cursor });
      expect([res.status, res.body.error]).toEqual([400, expect.stringMatching(/^Ugyldig forespørsel: cursor: /)]);
    }
    expect((await get(OWNER_SUBJECT, { q: 'bundet', limit: 5, cursor })).status).toBe(200);
  });
});

describe('limit', () => {
  it('defaults to 50 and allows up to 100', async () => {
    for (let i = 0; i < 60; i++) await addNode({ title: 'mengde', visibility: 'open' });
    const byDefault = await get('stranger', { q: 'mengde' });
    expect(byDefault.body.nodes).toHaveLength(50);
    expect(byDefault.body.next_cursor).toEqual(expect.any(String));
    const most = await get('stranger', { q: 'mengde', limit: 100 });
    expect(most.body.nodes).toHaveLength(60);
    expect(most.body.next_cursor).toBeNull();
  });
});

describe('a search too broad to rank in time', () => {
  it('is cancelled and answers 400 Ugyldig forespørsel: q: ... add words or filters', async () => {
    await sql`insert into nodes (id, node_kind, title, content, visibility, created_by)
      select gen_random_uuid(), 'content', 'overalt ' || i, 'overalt og alltid', 'open', null
        from generate_series(1, 30000) i`.execute(ctx.database.db);
    const impatient = ctx.app({ nodeQueries: new PostgresNodeQueryStore(ctx.database.db, { searchTimeoutMs: 1 }) });
    const res = await request(impatient)
      .get('/query/nodes')
      .query({ q: 'overalt' })
      .set('Authorization', `Bearer ${await ctx.tokenFor('stranger')}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Ugyldig forespørsel: q: treffer for mange noder til å rangeres i tide; legg til ord eller filtre' });
    // The same search with the default time limit is answered.
    expect((await get('stranger', { q: 'overalt', limit: 5 })).body.nodes).toHaveLength(5);
  });
});
