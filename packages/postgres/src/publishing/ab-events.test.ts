import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { OPERATOR, createNode, createPerson } from '@inntak/access';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';
import { recordAbCounts } from './ab-events.js';
import { createPublication, createVariant, publishArticle } from '@inntak/publishing';
import { runAbEvaluation } from '@inntak/ab-testing';

let db: OpenTestDatabase;
let ownerId: string;
let slug = 0;

beforeAll(async () => {
  db = await openTestDatabase();
  ownerId = (await createPerson(storesOn(db.db).graph, { subject: 'ab-owner' })).id;
});
afterAll(() => db.dispose());

/** A published article with `n` headline variants in a fresh publication. */
async function test(n: number): Promise<{ publicationId: string; articleId: string; variants: string[] }> {
  const { id: publicationId } = await createPublication(storesOn(db.db).publishing, OPERATOR, { title: 'AB', slug: `ab-${++slug}`, ownerId });
  const { id: articleId } = await createNode(storesOn(db.db).graph, { personId: ownerId, isAdmin: false }, { node_kind: 'content', title: 'Sak' });
  await publishArticle(storesOn(db.db).publishing, OPERATOR, { publication_id: publicationId, node_id: articleId });
  const variants: string[] = [];
  for (let i = 0; i < n; i++) {
    variants.push((await createVariant(storesOn(db.db).publishing, OPERATOR, { publication_id: publicationId, article_id: articleId, variant_type: 'headline', title: `V${i}` })).edge_id);
  }
  return { publicationId, articleId, variants };
}

async function metadata(id: string): Promise<Record<string, unknown>> {
  return (await db.db.selectFrom('edges').select('metadata').where('id', '=', id).executeTakeFirstOrThrow()).metadata;
}

/** Counts written in several batches and hours, as the API's recorder would. */
async function count(variant: string, impressions: number, clicks: number): Promise<void> {
  const half = Math.floor(impressions / 2);
  await recordAbCounts(db.db, [
    { variant_edge_id: variant, hour_of_week: 0, impressions: half, clicks: Math.floor(clicks / 2) },
    { variant_edge_id: variant, hour_of_week: 167, impressions: impressions - half, clicks: clicks - Math.floor(clicks / 2) },
  ]);
}

describe('the A/B evaluator', () => {
  it('99 impressions on a variant: no decision, but the counters are written to the edges', async () => {
    const { variants: [a, b] } = await test(2);
    await count(a!, 99, 60);
    await count(b!, 200, 2);
    const reports = await runAbEvaluation(storesOn(db.db).publishing);
    expect(reports.find((r) => r.variants.some((v) => v.edge_id === a))).toMatchObject({ decision: 'none', reason: 'too_few_impressions' });
    expect(await metadata(a!)).toMatchObject({ ab_status: 'testing', impressions: 99, clicks: 60, ctr: 0.606061 });
    expect(await metadata(b!)).toMatchObject({ ab_status: 'testing', impressions: 200, clicks: 2, ctr: 0.01 });
  });

  it('enough impressions and an always-valid p < 0.05: the better variant becomes winner, the other retired', async () => {
    const { variants: [a, b] } = await test(2);
    // 160/2000 against 100/2000: always-valid p = 0.017126 (SciPy, see packages/ab-testing/src/msprt.test.ts).
    await count(a!, 2000, 100);
    await count(b!, 2000, 160);
    const reports = await runAbEvaluation(storesOn(db.db).publishing);
    const report = reports.find((r) => r.variants.some((v) => v.edge_id === a))!;
    expect(report).toMatchObject({ decision: 'winner', winner: b, retired: [a] });
    expect(report.comparisons[0]!.p_value).toBeCloseTo(0.017125613, 6);
    expect(await metadata(b!)).toMatchObject({ ab_status: 'winner', impressions: 2000, clicks: 160, ctr: 0.08 });
    expect(await metadata(a!)).toMatchObject({ ab_status: 'retired', impressions: 2000, clicks: 100, ctr: 0.05 });
    // A decided test is not evaluated again.
    expect((await runAbEvaluation(storesOn(db.db).publishing)).some((r) => r.variants.some((v) => v.edge_id === a))).toBe(false);
  });

  it('three variants: the leader must beat each other variant after Holm correction', async () => {
    const { variants: [a, b, c] } = await test(3);
    // Always-valid p (SciPy): 168/2000 vs 110/2000 p = 0.0298, vs 111/2000 p = 0.0346: each < 0.05, smallest not < 0.025.
    await count(a!, 2000, 168);
    await count(b!, 2000, 110);
    await count(c!, 2000, 111);
    const reports = await runAbEvaluation(storesOn(db.db).publishing);
    expect(reports.find((r) => r.variants.some((v) => v.edge_id === a))).toMatchObject({ decision: 'none', reason: 'not_significant' });
    // c at 95/2000: p = 0.0021 < 0.025, and b's 0.0298 < 0.05.
    await sql`delete from ab_events where variant_edge_id = ${c}`.execute(db.db);
    await count(c!, 2000, 95);
    const decided = (await runAbEvaluation(storesOn(db.db).publishing)).find((r) => r.variants.some((v) => v.edge_id === a))!;
    expect(decided).toMatchObject({ decision: 'winner', winner: a });
    expect(await metadata(c!)).toMatchObject({ ab_status: 'retired' });
  });

  it('a batch with a variant deleted meanwhile keeps the rest', async () => {
    const { variants: [a, b] } = await test(2);
    await sql`delete from edges where id = ${b}`.execute(db.db);
    const written = await recordAbCounts(db.db, [
      { variant_edge_id: a!, hour_of_week: 5, impressions: 3, clicks: 1 },
      { variant_edge_id: b!, hour_of_week: 5, impressions: 4, clicks: 0 },
    ]);
    expect(written).toBe(1);
  });

  it('hour_of_week outside 0–167 is refused by the table', async () => {
    const { variants: [a] } = await test(1);
    await expect(recordAbCounts(db.db, [{ variant_edge_id: a!, hour_of_week: 168, impressions: 1, clicks: 0 }])).rejects.toThrow(/ab_events_hour_of_week_check/);
  });
});
