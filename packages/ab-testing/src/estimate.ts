import { MIXING_VARIANCE } from './msprt.js';
import { ctr, MIN_IMPRESSIONS, SIGNIFICANCE, type VariantCounts } from './types.js';

/**
 * How many impressions a test still needs, derived from the evaluator's own rule (evaluator.ts):
 * the leader wins once its always-valid mSPRT p-value against every other variant is below the
 * Holm threshold, that is once the pooled z statistic passes the mSPRT boundary
 *
 *   z² ≥ 2 (w + τ²) / τ² · (ln(1/α') + ½ ln((w + τ²) / w)),   w = 2/n for n impressions per variant.
 *
 * Taking the click-through rates seen so far as the true ones, z at n impressions per variant is
 * about normal with mean δ / √(p̄(1 − p̄)·w) and standard deviation 1. The estimate is the n at
 * which that mean lies ESTIMATE_POWER's normal quantile above the boundary: a look at n decides
 * with probability ESTIMATE_POWER, and since the evaluator looks every 5 minutes and stops at
 * the first crossing, it has decided by then at least as often. The comparison that takes longest
 * is the leader against the runner-up; with k > 2 variants it is held to Holm's strictest
 * threshold α/(k − 1), but the leader must pass every comparison at once, so the chance is a
 * little under ESTIMATE_POWER (77 % for 5 % / 4 % / 4 % in the simulation). A simulation
 * (estimate.test.ts) checks the figure against the rule itself.
 */
export const ESTIMATE_POWER = 0.8;
/** Φ⁻¹(0.8), the standard normal quantile of ESTIMATE_POWER. */
const POWER_QUANTILE = 0.8416212335729143;
/** Beyond this many impressions per variant the estimate says only "more than". */
export const MAX_ESTIMATE = 1e9;

/** The mSPRT boundary of the pooled z statistic at weight w = 1/n1 + 1/n2 and level alpha. */
export function zBoundary(w: number, alpha: number, tau2: number = MIXING_VARIANCE): number {
  return Math.sqrt(((2 * (w + tau2)) / tau2) * (Math.log(1 / alpha) + 0.5 * Math.log((w + tau2) / w)));
}

/**
 * Impressions per variant at which the rule decides `rates` (the true click-through rate per
 * variant) with probability about ESTIMATE_POWER; null when the leading rates are equal or it
 * would take more than MAX_ESTIMATE.
 */
export function impressionsPerVariantNeeded(rates: readonly number[], alpha = SIGNIFICANCE, tau2: number = MIXING_VARIANCE): number | null {
  if (rates.length < 2) return null;
  const [best, second] = [...rates].sort((a, b) => b - a) as [number, number];
  const delta = best - second;
  const pooled = (best + second) / 2;
  if (!(delta > 0) || pooled <= 0 || pooled >= 1) return null;
  const level = alpha / (rates.length - 1);
  const gap = (n: number) => delta / Math.sqrt((pooled * (1 - pooled) * 2) / n) - zBoundary(2 / n, level, tau2) - POWER_QUANTILE;
  if (gap(MAX_ESTIMATE) < 0) return null;
  // The gap grows with n (the mean of z as √n, the boundary as √(ln n)): bisect on log n.
  let low = 1;
  let high = MAX_ESTIMATE;
  if (gap(low) >= 0) return MIN_IMPRESSIONS;
  while (high / low > 1.0001) {
    const mid = Math.sqrt(low * high);
    if (gap(mid) >= 0) high = mid;
    else low = mid;
  }
  return Math.max(MIN_IMPRESSIONS, Math.ceil(high));
}

export interface RemainingEstimate {
  /** Impressions per variant the test needs in all (at least MIN_IMPRESSIONS), or null: no difference seen yet, or more than MAX_ESTIMATE. */
  perVariant: number | null;
  /** Impressions still to come, all variants together (0 when the test has enough). */
  remaining: number | null;
  /** Days until then at the round's traffic so far; null without an hour of traffic to go by. */
  days: number | null;
}

/**
 * The estimate for a test in progress, from its counts of the current round: the rates seen taken
 * as the true ones, the traffic of the round so far (impressions per elapsed time) as the traffic
 * to come. With no clicks or equal rates there is nothing to estimate from yet.
 */
export function remainingEstimate(variants: readonly VariantCounts[], roundStartedAt: Date | null, now: Date): RemainingEstimate {
  const perVariant = impressionsPerVariantNeeded(variants.map(ctr));
  if (perVariant === null) return { perVariant: null, remaining: null, days: null };
  const remaining = variants.reduce((sum, v) => sum + Math.max(0, perVariant - v.impressions), 0);
  const elapsedMs = roundStartedAt ? now.getTime() - roundStartedAt.getTime() : 0;
  const seen = variants.reduce((sum, v) => sum + v.impressions, 0);
  const perDay = elapsedMs >= 3600_000 && seen > 0 ? (seen / elapsedMs) * 86_400_000 : null;
  return { perVariant, remaining, days: perDay === null ? null : remaining / perDay };
}
