import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { OPERATOR, createNode, createPerson } from '@inntak/access';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';
import { searchArticles, type PubSearchOptions } from './pages.js';
import { createPublication, publishArticle } from '@inntak/publishing';

let db: OpenTestDatabase;
let ownerId: string;
let publicationId: string;
/** Published articles with "fjell", oldest first; "fjell" in the title of every third one. */
const published: string[] = [];

beforeAll(async () => {
  db = await openTestDatabase();
  ownerId = (await createPerson(storesOn(db.db).graph, { subject: 'search-owner' })).id;
  publicationId = (await createPublication(storesOn(db.db).publishing, OPERATOR, { title: 'Søk', slug: 'sok-test', ownerId })).id;
  const other = (await createPublication(storesOn(db.db).publishing, OPERATOR, { title: 'Annen', slug: 'annen', ownerId })).id;
  const article = async (title: string, content: string) =>
    (await createNode(storesOn(db.db).graph, { personId: ownerId, isAdmin: false }, { node_kind: 'content', title, content, visibility: 'open' })).id;
  for (let i = 0; i < 9; i++) {
    const id = await article(i % 3 === 0 ? `fjell ${i}` : `sak ${i}`, `fjell og dal ${i}`);
    await publishArticle(storesOn(db.db).publishing, OPERATOR, { publication_id: publicationId, node_id: id });
    published.push(id);
  }
  await article('fjell upublisert', 'fjell'); // not published anywhere
  await publishArticle(storesOn(db.db).publishing, OPERATOR, { publication_id: other, node_id: await article('fjell annet sted', 'fjell') });
});
afterAll(() => db.dispose());

/** Every page of a search, 2 per page. */
async function all(words: string, options: PubSearchOptions): Promise<string[]> {
  const seen: string[] = [];
  for (let page = 0; page < 20; page++) {
    const rows = await searchArticles(db.db, publicationId, words, { offset: page * 2, limit: 2 }, options);
    seen.push(...rows.map((r) => r.id));
    if (rows.length < 2) break;
  }
  return seen;
}

describe('the public search of a publication', () => {
  it('pages through every published match once, the newest window first and best first within it, read from bitmaps or walked', async () => {
    const newestFirst = [...published].reverse();
    for (const strategy of ['bitmap', 'walk'] as const) {
      const seen = await all('fjell', { window: 3, strategy });
      // Windows of 3 newest matches; in each, the title hits (i = 6, 3, 0) rank first.
      expect([strategy, seen.length, new Set(seen).size]).toEqual([strategy, 9, 9]);
      for (let w = 0; w < 3; w++) expect(new Set(seen.slice(w * 3, w * 3 + 3))).toEqual(new Set(newestFirst.slice(w * 3, w * 3 + 3)));
      expect([strategy, seen[0]]).toEqual([strategy, published[6]]);
    }
  });

  it("walked, a common word's search covers the span of newest published articles and no older one", async () => {
    const seen = await all('fjell', { window: 3, strategy: 'walk', span: 4 });
    expect(new Set(seen)).toEqual(new Set(published.slice(-4)));
    // From the bitmap, a rare word's search has no such bound.
    expect(new Set(await all('fjell', { window: 3, strategy: 'bitmap', span: 4 }))).toEqual(new Set(published));
  });
});

describe('how the public search finds its matches', () => {
  it('words that go together are not taken for rare: the rarest single word bounds the estimate, so they are walked', async () => {
    // 600 articles with "nord" and "lys" always together, in a database of a few thousand nodes:
    // independent, the planner would expect them together in a few.
    await sql`insert into nodes (id, node_kind, title, content, visibility, metadata, created_by)
      select gen_random_uuid(), 'content', 'nord lys', 'tekst', 'open', '{}', ${ownerId} from generate_series(1, 600)`.execute(db.db);
    await sql`insert into nodes (id, node_kind, title, content, visibility, metadata, created_by)
      select gen_random_uuid(), 'content', 'annet ' || i, 'tekst', 'open', '{}', ${ownerId} from generate_series(1, 3000) i`.execute(db.db);
    await sql`analyze node_search`.execute(db.db);
    const estimate = async (words: string) =>
      (await sql<{ planner: number }>`select documents as planner from inntak_search_estimate(websearch_to_tsquery('simple', ${words}))`.execute(db.db)).rows[0]!.planner;
    expect(await estimate('nord lys')).toBeLessThan(300);
    // The walk reads the span's newest articles only: with a span of 1 it finds the newest match alone.
    const id = (await createNode(storesOn(db.db).graph, { personId: ownerId, isAdmin: false }, { node_kind: 'content', title: 'nord lys', content: 'x', visibility: 'open' })).id;
    await publishArticle(storesOn(db.db).publishing, OPERATOR, { publication_id: publicationId, node_id: id });
    const older = (await createNode(storesOn(db.db).graph, { personId: ownerId, isAdmin: false }, { node_kind: 'content', title: 'sak', content: 'x', visibility: 'open' })).id;
    await publishArticle(storesOn(db.db).publishing, OPERATOR, { publication_id: publicationId, node_id: older });
    // Bitmaps up to 300 matches: the planner's estimate alone would choose one.
    const rows = await searchArticles(db.db, publicationId, 'nord lys', { offset: 0, limit: 10 }, { span: 1, bitmapMatches: 300 });
    // Walked over the single newest article ("sak"), nothing; from the bitmap it would have found "nord lys".
    expect(rows).toEqual([]);
    expect((await searchArticles(db.db, publicationId, 'nord lys', { offset: 0, limit: 10 }, { span: 1, bitmapMatches: 1000 })).map((r) => r.id)).toEqual([id]);
  });
});
