import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { sql } from 'kysely';
import { uuidv7 } from '@inntak/core';
import { viewOf, createCollection, createPerson } from '@inntak/access';
import { VISIBILITIES, type NodeQuery, type Visibility } from '@inntak/graph';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';
import { queryNodes } from './node-query.js';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const WORDS = ['alfa', 'beta', 'gamma'];
const LEVELS = ['reader', 'member', 'admin', 'owner'] as const;
let h: OpenTestDatabase;
let persons: string[];
let collections: string[];

beforeAll(async () => {
  h = await openTestDatabase(quiet);
  persons = [];
  for (const subject of ['p0', 'p1', 'p2']) persons.push((await createPerson(storesOn(h.db).graph, { subject })).id);
  collections = [];
  for (const title of ['c0', 'c1']) collections.push((await createCollection(storesOn(h.db).graph, { title, ownerId: persons[0]! })).id);
});
afterAll(async () => {
  await h.dispose();
});

interface Spec {
  visibility: Visibility;
  creator: number | null;
  kind: 'content' | 'media';
  collection: number | null;
  words: string[];
  access: Array<{ person: number; level: (typeof LEVELS)[number] }>;
}

// Each optional part is absent half of the time, so unfiltered listings and searches are common.
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null, freq: 1 });

const nodeSpec = fc.record({
  visibility: fc.constantFrom(...VISIBILITIES),
  creator: fc.option(fc.integer({ min: 0, max: 2 })),
  kind: fc.constantFrom('content' as const, 'media' as const),
  collection: maybe(fc.integer({ min: 0, max: 1 })),
  words: fc.subarray(WORDS),
  access: fc.uniqueArray(fc.record({ person: fc.integer({ min: 0, max: 2 }), level: fc.constantFrom(...LEVELS) }), {
    selector: (a) => a.person,
    maxLength: 2,
  }),
});

const querySpec = fc.record({
  caller: fc.integer({ min: 0, max: 2 }),
  text: maybe(fc.constantFrom(...WORDS)),
  kind: maybe(fc.constantFrom('content', 'media')),
  visibilities: maybe(fc.subarray([...VISIBILITIES], { minLength: 1 })),
  collection: maybe(fc.integer({ min: 0, max: 1 })),
  createdByCaller: fc.boolean(),
  limit: fc.integer({ min: 1, max: 4 }),
});

async function insert(specs: Spec[]): Promise<Array<Spec & { id: string }>> {
  const rows = [];
  for (const spec of specs) {
    const id = uuidv7();
    await h.db
      .insertInto('nodes')
      .values({
        id,
        node_kind: spec.kind,
        title: spec.words.slice(0, 1).join(' ') || null,
        content: spec.words.slice(1).join(' ') || null,
        visibility: spec.visibility,
        metadata: '{}',
        created_by: spec.creator === null ? null : persons[spec.creator]!,
      })
      .execute();
    if (spec.collection !== null) {
      await h.db
        .insertInto('edges')
        .values({ id: uuidv7(), source_id: id, target_id: collections[spec.collection]!, edge_type: 'belongs_to', metadata: '{}', created_by: null })
        .execute();
    }
    for (const a of spec.access) {
      await h.db.insertInto('node_access').values({ subject_id: persons[a.person]!, object_id: id, access: a.level, via_edge: null }).execute();
    }
    rows.push({ ...spec, id });
  }
  return rows;
}

describe('queryNodes against the read rules', () => {
  // A search ranks windows of the newest matches (node-search.ts): the default window is larger
  // than any fixture here, so ranks fall page after page; a window of 3 makes every multi-page
  // search cross windows, where only the rows and their uniqueness are the contract.
  // Each search part is read by walking its index (common words) or from a bitmap of its
  // matches (rare words): both ways must give the same rows.
  // Walked windows also stop at a span of nodes, and a page reads at most two windows (a short
  // page with a cursor): spans of 4 nodes make both happen.
  it.each([
    ['one window, walked', undefined, 'walk', undefined],
    ['one window, from bitmaps', undefined, 'bitmap', undefined],
    ['windows of 3, walked', 3, 'walk', undefined],
    ['windows of 3, from bitmaps', 3, 'bitmap', undefined],
    ['windows of 3 in spans of 4 nodes, walked', 3, 'walk', 4],
  ] as const)('paging through any query yields exactly the rows the read rules let the caller see, each once, in order (%s)', async (_label, searchWindow, searchStrategy, searchSpan) => {
    await fc.assert(
      fc.asyncProperty(fc.array(nodeSpec, { minLength: 1, maxLength: 14 }), fc.array(querySpec, { minLength: 1, maxLength: 4 }), async (specs, queries) => {
        const made = await insert(specs);
        try {
          for (const q of queries) {
            const caller = persons[q.caller]!;
            const query: NodeQuery = {
              limit: q.limit,
              ...(q.text === null ? {} : { text: q.text }),
              ...(q.kind === null ? {} : { nodeKinds: [q.kind] }),
              ...(q.visibilities === null ? {} : { visibilities: q.visibilities }),
              ...(q.collection === null ? {} : { collectionId: collections[q.collection]! }),
              ...(q.createdByCaller ? { createdBy: caller } : {}),
            };
            const expected = made
              .filter((n) => {
                const access = n.access.find((a) => a.person === q.caller)?.level ?? null;
                return viewOf(n.visibility, { creator: n.creator === q.caller, access }) !== null;
              })
              .filter((n) => q.text === null || n.words.includes(q.text))
              .filter((n) => q.kind === null || n.kind === q.kind)
              .filter((n) => q.visibilities === null || q.visibilities.includes(n.visibility))
              .filter((n) => q.collection === null || n.collection === q.collection)
              .filter((n) => !q.createdByCaller || n.creator === q.caller)
              .map((n) => n.id)
              .sort()
              .reverse();
            const seen: string[] = [];
            const ranks: number[] = [];
            let after: NodeQuery['after'];
            for (let page = 0; page < 200; page++) {
              const result = await queryNodes(h.db, caller, { ...query, after }, { searchWindow, searchStrategy, searchSpan });
              expect(result.rows.length).toBeLessThanOrEqual(q.limit);
              seen.push(...result.rows.map((r) => r.node.id));
              ranks.push(...result.rows.map((r) => Number(r.rank ?? 0)));
              after = result.next;
              if (!after) break;
            }
            // Each row once; of this run's rows exactly the expected ones (the fixture's persons
            // and collections may show up too). A listing is newest first; a search by rank.
            expect(new Set(seen).size).toBe(seen.length);
            const madeIds = new Set(made.map((n) => n.id));
            if (q.text === null) expect(seen.filter((id) => madeIds.has(id))).toEqual(expected);
            else {
              expect(seen.filter((id) => madeIds.has(id)).sort().reverse()).toEqual(expected);
              if (searchWindow === undefined) for (let i = 1; i < ranks.length; i++) expect(ranks[i]!).toBeLessThanOrEqual(ranks[i - 1]!);
            }
          }
        } finally {
          await sql`delete from nodes where id = any(${made.map((n) => n.id)}::uuid[])`.execute(h.db);
        }
      }),
      { numRuns: 30 },
    );
  });
});
