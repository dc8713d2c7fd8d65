import { evaluateTest, type Comparison, type TestDecision } from './evaluator.js';
import type { AbTestStore, TestingVariant } from './ports.js';
import { ctr } from './types.js';

export interface TestReport {
  publication_id: string;
  article_id: string;
  variant_type: string;
  decision: TestDecision['decision'];
  reason?: string;
  winner?: string;
  retired?: string[];
  variants: Array<{ edge_id: string; impressions: number; clicks: number; ctr: number }>;
  comparisons: Array<{ against: string; z: number; p_value: number; threshold: number }>;
  sample_ratio?: { chi_square: number; p_value: number };
}

/** Tests read per run; the rest wait for the next run (every 300 s). */
export const MAX_TESTS_PER_RUN = 10_000;

/**
 * The evaluator (every 300 s in the worker, and `inntak ab evaluate`): every variant still
 * `testing`, summed from its AB events of the test's current round, grouped into tests
 * (publication, article, variant type) and decided by evaluateTest. One transaction: the
 * variants are locked, their counters written, the look recorded (why nothing was decided), and
 * a decided test's winner and retired set and its decision put in the history. A split that
 * goes off (sample-ratio mismatch) is put in the history once, when it happens.
 */
export function runAbEvaluation(store: AbTestStore): Promise<TestReport[]> {
  return store.transaction(async (tx) => {
    const rows = await tx.testingVariants(MAX_TESTS_PER_RUN * 4);
    const tests = new Map<string, TestingVariant[]>();
    for (const row of rows) {
      const key = `${row.publicationId}/${row.articleId}/${row.variantType}`;
      const group = tests.get(key);
      if (group) group.push(row);
      else tests.set(key, [row]);
    }
    const reports: TestReport[] = [];
    for (const group of tests.values()) {
      const counts = group.map((r) => ({ id: r.id, impressions: r.impressions, clicks: r.clicks }));
      const decision = evaluateTest(counts);
      await tx.writeCounters(counts.map((c) => c.id));
      const first = group[0]!;
      const test = { publicationId: first.publicationId, articleId: first.articleId, variantType: first.variantType };
      const comparisons = decision.comparisons.map((c: Comparison) => ({ against: c.against, z: c.z, p_value: c.pValue, threshold: c.threshold }));
      const sampleRatio = decision.sampleRatio && { chi_square: decision.sampleRatio.chiSquare, p_value: decision.sampleRatio.pValue };
      const before = await tx.recordLook(test, decision.decision === 'none' ? decision.reason : null);
      if (decision.decision === 'winner') {
        await tx.setStatus([decision.winner], 'winner');
        await tx.setStatus(decision.retired, 'retired');
        await tx.recordDecision({ test, kind: 'winner', variantId: decision.winner, decidedBy: null, detail: { variants: counts, comparisons, sample_ratio: sampleRatio } });
      } else if (decision.reason === 'sample_ratio_mismatch' && before !== 'sample_ratio_mismatch') {
        // Recorded when the split goes off, not at every look while it stays off.
        await tx.recordDecision({ test, kind: 'sample_ratio_mismatch', variantId: null, decidedBy: null, detail: { variants: counts, sample_ratio: sampleRatio } });
      }
      reports.push({
        publication_id: first.publicationId,
        article_id: first.articleId,
        variant_type: first.variantType,
        decision: decision.decision,
        ...(decision.decision === 'winner' ? { winner: decision.winner, retired: decision.retired } : { reason: decision.reason }),
        variants: counts.map((c) => ({ edge_id: c.id, impressions: c.impressions, clicks: c.clicks, ctr: ctr(c) })),
        comparisons,
        ...(sampleRatio ? { sample_ratio: sampleRatio } : {}),
      });
    }
    return reports;
  });
}
