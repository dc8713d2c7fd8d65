import { twoProportionZTest } from './z-test.js';
import { ctr, MIN_IMPRESSIONS, SIGNIFICANCE, type VariantCounts } from './types.js';

export interface Comparison {
  /** The variant the leader was compared with. */
  against: string;
  z: number;
  pValue: number;
  /** The Holm threshold this comparison had to pass (α / (m − rank + 1)). */
  threshold: number;
}

export type TestDecision =
  | { decision: 'winner'; winner: string; retired: string[]; comparisons: Comparison[] }
  | { decision: 'none'; reason: 'too_few_variants' | 'too_few_impressions' | 'no_leader' | 'not_significant'; comparisons: Comparison[] };

/**
 * One evaluator decision for one test (the variants of one type for one article, all `testing`).
 *
 * - Every variant needs MIN_IMPRESSIONS impressions; until then nothing is decided.
 * - The leader is the variant with the highest click-through rate; a tie for the lead decides
 *   nothing.
 * - The leader is compared with each other variant by the two-proportion z-test. With two
 *   variants that is the one test, at p < 0.05. With k > 2 variants there are m = k − 1
 *   comparisons, corrected by Holm's step-down method: sorted by p-value, the i-th smallest must
 *   be below α / (m − i + 1). The leader wins only when every comparison passes, i.e. it is
 *   significantly better than each other variant with a family-wise error rate of α.
 * - The winner becomes `winner`, the others `retired` (the same end state as an editor's override).
 */
export function evaluateTest(variants: readonly VariantCounts[]): TestDecision {
  if (variants.length < 2) return { decision: 'none', reason: 'too_few_variants', comparisons: [] };
  if (variants.some((v) => v.impressions < MIN_IMPRESSIONS)) return { decision: 'none', reason: 'too_few_impressions', comparisons: [] };
  const ranked = [...variants].sort((a, b) => ctr(b) - ctr(a));
  const [leader, ...others] = ranked as [VariantCounts, ...VariantCounts[]];
  if (ctr(others[0]!) === ctr(leader)) return { decision: 'none', reason: 'no_leader', comparisons: [] };
  const tests = others
    .map((other) => ({ against: other.id, ...twoProportionZTest(leader, other) }))
    .sort((a, b) => a.pValue - b.pValue);
  const m = tests.length;
  const comparisons = tests.map((t, i) => ({ ...t, threshold: SIGNIFICANCE / (m - i) }));
  if (comparisons.every((c) => c.pValue < c.threshold)) {
    return { decision: 'winner', winner: leader.id, retired: others.map((o) => o.id), comparisons };
  }
  return { decision: 'none', reason: 'not_significant', comparisons };
}
