import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { OPERATOR, createNode, createPerson } from '@inntak/access';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '../testing/index.js';
import { recordAbCounts } from './ab-events.js';
import { abOverride, createPublication, createVariant, publishArticle } from '@inntak/publishing';
import { abResults, runAbEvaluation } from '@inntak/ab-testing';

let db: OpenTestDatabase;
let ownerId: string;
let slug = 0;

beforeAll(async () => {
  db = await openTestDatabase();
  ownerId = (await createPerson(storesOn(db.db).graph, { subject: 'results-owner' })).id;
});
afterAll(() => db.dispose());

const owner = () => ({ personId: ownerId, isAdmin: false });

async function scene() {
  const { id: publicationId } = await createPublication(storesOn(db.db).publishing, OPERATOR, { title: 'R', slug: `res-${++slug}`, ownerId });
  const { id: articleId } = await createNode(storesOn(db.db).graph, owner(), { node_kind: 'content', title: 'Saken' });
  await publishArticle(storesOn(db.db).publishing, OPERATOR, { publication_id: publicationId, node_id: articleId });
  const variant = async (title: string) => (await createVariant(storesOn(db.db).publishing, owner(), { publication_id: publicationId, article_id: articleId, variant_type: 'headline', title })).edge_id;
  return { publicationId, articleId, variant };
}

/** Counts as the API's recorder writes them, stamped `secondsAgo` in the past. */
async function counted(variant: string, impressions: number, clicks: number, secondsAgo = 0): Promise<void> {
  await recordAbCounts(db.db, [{ variant_edge_id: variant, hour_of_week: 3, impressions, clicks }]);
  if (secondsAgo) await sql`update ab_events set recorded_at = now() - make_interval(secs => ${secondsAgo}) where variant_edge_id = ${variant} and recorded_at > now() - interval '1 second'`.execute(db.db);
}

describe('A/B results and rounds', () => {
  it('per test: counts, CTR with a 95 % interval, lift with an always-valid interval, p, why undecided, history', async () => {
    const { publicationId, articleId, variant } = await scene();
    const a = await variant('Alfa');
    const b = await variant('Beta');
    await counted(a, 1000, 60);
    await counted(b, 1000, 40);
    await runAbEvaluation(storesOn(db.db).publishing);
    const { tests } = await abResults(storesOn(db.db).abResults, owner(), publicationId);
    expect(tests).toHaveLength(1);
    const [test] = tests;
    expect(test).toMatchObject({ article_id: articleId, article_title: 'Saken', variant_type: 'headline', state: 'testing', round: 1 });
    expect(test!.variants.map((v) => [v.title, v.impressions, v.clicks]).sort()).toEqual([
      ['Alfa', 1000, 60],
      ['Beta', 1000, 40],
    ]);
    const alfa = test!.variants.find((v) => v.edge_id === a)!;
    // Wilson 95 % for 60/1000 (SciPy 1.17.1: binomtest(60, 1000).proportion_ci(method='wilson')).
    expect(alfa.ctr.estimate).toBe(0.06);
    expect(alfa.ctr.low).toBeCloseTo(0.04689647267593196, 10);
    expect(alfa.ctr.high).toBeCloseTo(0.07647107479135655, 10);
    const lift = test!.comparisons.find((c) => c.variant === a && c.against === b)!;
    // 60/1000 against 40/1000: always-valid p = 0.528 and interval −0.0175…0.0575 (SciPy, msprt.test.ts).
    expect(lift.p_value).toBeCloseTo(0.5276128239287604, 8);
    expect(lift.difference.low).toBeCloseTo(-0.017534851836224597, 9);
    expect(lift.difference.high).toBeCloseTo(0.05753485183622458, 9);
    expect(lift.lift!.estimate).toBeCloseTo(0.5, 12);
    expect(test!.undecided).toMatchObject({ reason: 'not_significant' });
    expect(test!.last_evaluated_at).not.toBeNull();
    expect(test!.history).toEqual([expect.objectContaining({ kind: 'round_started', round: 1, edge_id: b, decided_by: ownerId })]);
  });

  it('an override goes into the history with who made it; a winner brought back into testing starts a new round: counts from then on', async () => {
    const { publicationId, variant } = await scene();
    const a = await variant('Alfa');
    const b = await variant('Beta');
    await counted(a, 5000, 500, 60);
    await counted(b, 5000, 250, 60);
    await abOverride(storesOn(db.db).publishing, owner(), { edge_id: a });
    const decided = (await abResults(storesOn(db.db).abResults, owner(), publicationId)).tests[0]!;
    expect(decided).toMatchObject({ state: 'decided', undecided: null });
    expect(decided.history[0]).toMatchObject({ kind: 'override', edge_id: a, decided_by: ownerId, detail: { retired: [b] } });
    // A challenger: the winner is testing again, in round 2, from zero like the challenger.
    const c = await variant('Gamma');
    const again = (await abResults(storesOn(db.db).abResults, owner(), publicationId)).tests[0]!;
    expect(again).toMatchObject({ state: 'testing', round: 2, undecided: { reason: 'too_few_impressions' } });
    expect(again.comparisons.map((x) => [x.variant, x.against]).sort()).toEqual([[a, c], [c, a]].sort());
    expect(again.variants.find((v) => v.edge_id === a)).toMatchObject({ ab_status: 'testing', impressions: 0, clicks: 0 });
    expect(again.history.map((h) => [h.kind, h.round])).toEqual([
      ['round_started', 2],
      ['override', 1],
      ['round_started', 1],
    ]);
    await counted(a, 120, 12);
    await counted(c, 120, 6);
    const reports = await runAbEvaluation(storesOn(db.db).publishing);
    const report = reports.find((r) => r.variants.some((v) => v.edge_id === a))!;
    expect(report.variants).toEqual([
      expect.objectContaining({ edge_id: [a, c].sort()[0], impressions: 120 }),
      expect.objectContaining({ edge_id: [a, c].sort()[1], impressions: 120 }),
    ]);
    const edge = await db.db.selectFrom('edges').select('metadata').where('id', '=', a).executeTakeFirstOrThrow();
    expect(edge.metadata).toMatchObject({ ab_status: 'testing', impressions: 120, clicks: 12 });
  });

  it('a member reads the results; a stranger who cannot see the publication gets 404', async () => {
    const { publicationId } = await scene();
    const stranger = await createPerson(storesOn(db.db).graph, { subject: `stranger-${slug}` });
    await expect(abResults(storesOn(db.db).abResults, { personId: stranger.id, isAdmin: false }, publicationId)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('while the split is off the evaluator decides nothing, records the reason, and puts it in the history once', async () => {
    const { publicationId, articleId, variant } = await scene();
    const a = await variant('Alfa');
    const b = await variant('Beta');
    // 1,000 against 1,160 impressions (chi-square p = 0.00058), however clear the rates.
    await counted(a, 1000, 300);
    await counted(b, 1160, 10);
    for (let i = 0; i < 3; i++) expect((await runAbEvaluation(storesOn(db.db).publishing)).find((r) => r.article_id === articleId)).toMatchObject({ decision: 'none', reason: 'sample_ratio_mismatch' });
    const { rows } = await sql<{ last_reason: string; kinds: string[] }>`
      select t.last_reason, array(select kind from ab_decisions d where d.article_id = t.article_id order by id) as kinds
      from ab_tests t where t.article_id = ${articleId}`.execute(db.db);
    expect(rows).toEqual([{ last_reason: 'sample_ratio_mismatch', kinds: ['round_started', 'sample_ratio_mismatch'] }]);
    const [test] = (await abResults(storesOn(db.db).abResults, owner(), publicationId)).tests;
    expect(test!.undecided).toMatchObject({ reason: 'sample_ratio_mismatch' });
    expect(test!.sample_ratio!.p_value).toBeCloseTo(0.0005760403386062825, 9);
  });
});
