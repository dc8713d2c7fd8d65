import { alwaysValidPValue } from './msprt.js';
import { sampleRatioTest } from './sample-ratio.js';
import { ctr, MIN_IMPRESSIONS, SIGNIFICANCE, type VariantCounts } from './types.js';

export interface Comparison {
  /** The variant the leader was compared with. */
  against: string;
  /** The pooled two-proportion z statistic (positive: the leader is ahead). */
  z: number;
  /** The always-valid p-value (mSPRT, msprt.ts): valid however often it is looked at. */
  pValue: number;
  /** The Holm threshold this comparison had to pass (α / (m − rank + 1)). */
  threshold: number;
}

/** Why a look decided nothing (docs/publishing.md, "Why nothing is decided yet"). */
export type UndecidedReason = 'too_few_variants' | 'too_few_impressions' | 'sample_ratio_mismatch' | 'no_leader' | 'not_significant';

export interface SampleRatio {
  chiSquare: number;
  pValue: number;
}

export type TestDecision =
  | { decision: 'winner'; winner: string; retired: string[]; comparisons: Comparison[]; sampleRatio: SampleRatio }
  | { decision: 'none'; reason: UndecidedReason; comparisons: Comparison[]; sampleRatio?: SampleRatio };

/**
 * One evaluator decision for one test (the variants of one type for one article, all `testing`),
 * a pure function of each variant's cumulative counts in the current round, so every look
 * decides from the counts alone.
 *
 * - Every variant needs MIN_IMPRESSIONS impressions; until then nothing is decided.
 * - The impressions must split evenly (sample-ratio test, p ≥ 0.001); while they do not,
 *   nothing is decided.
 * - The leader is the variant with the highest click-through rate; a tie for the lead decides
 *   nothing.
 * - The leader is compared with each other variant by the always-valid mSPRT p-value. With two
 *   variants that is the one test, at p < 0.05. With k > 2 variants there are m = k − 1
 *   comparisons, corrected by Holm's step-down method: sorted by p-value, the i-th smallest must
 *   be below α / (m − i + 1). The leader wins only when every comparison passes. Holm needs only
 *   each p-value to be valid, which an always-valid p-value is at any look.
 * - The winner becomes `winner`, the others `retired` (the same end state as an editor's override).
 */
export function evaluateTest(variants: readonly VariantCounts[]): TestDecision {
  if (variants.length < 2) return { decision: 'none', reason: 'too_few_variants', comparisons: [] };
  if (variants.some((v) => v.impressions < MIN_IMPRESSIONS)) return { decision: 'none', reason: 'too_few_impressions', comparisons: [] };
  const split = sampleRatioTest(variants.map((v) => v.impressions));
  const sampleRatio = { chiSquare: split.chiSquare, pValue: split.pValue };
  if (split.mismatch) return { decision: 'none', reason: 'sample_ratio_mismatch', comparisons: [], sampleRatio };
  const ranked = [...variants].sort((a, b) => ctr(b) - ctr(a));
  const [leader, ...others] = ranked as [VariantCounts, ...VariantCounts[]];
  if (ctr(others[0]!) === ctr(leader)) return { decision: 'none', reason: 'no_leader', comparisons: [], sampleRatio };
  const tests = others.map((other) => ({ against: other.id, ...alwaysValidPValue(leader, other) })).sort((a, b) => a.pValue - b.pValue);
  const m = tests.length;
  const comparisons = tests.map((t, i) => ({ ...t, threshold: SIGNIFICANCE / (m - i) }));
  if (comparisons.every((c) => c.pValue < c.threshold)) {
    return { decision: 'winner', winner: leader.id, retired: others.map((o) => o.id), comparisons, sampleRatio };
  }
  return { decision: 'none', reason: 'not_significant', comparisons, sampleRatio };
}
