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
}

/** Tests read per run; the rest wait for the next run (every 300 s). */
export const MAX_TESTS_PER_RUN = 10_000;

/**
 * The evaluator (every 300 s in the worker, and `inntak ab evaluate`): every variant still
 * `testing`, summed from its AB events, grouped into tests (publication, article, variant type)
 * and decided by evaluateTest. One transaction: the variants are locked, their counters written,
 * and a decided test's winner and retired set.
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
      if (decision.decision === 'winner') {
        await tx.setStatus([decision.winner], 'winner');
        await tx.setStatus(decision.retired, 'retired');
      }
      const first = group[0]!;
      reports.push({
        publication_id: first.publicationId,
        article_id: first.articleId,
        variant_type: first.variantType,
        decision: decision.decision,
        ...(decision.decision === 'winner' ? { winner: decision.winner, retired: decision.retired } : { reason: decision.reason }),
        variants: counts.map((c) => ({ edge_id: c.id, impressions: c.impressions, clicks: c.clicks, ctr: ctr(c) })),
        comparisons: decision.comparisons.map((c: Comparison) => ({ against: c.against, z: c.z, p_value: c.pValue, threshold: c.threshold })),
      });
    }
    return reports;
  });
}
