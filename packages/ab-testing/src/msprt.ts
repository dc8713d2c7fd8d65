/**
 * Always-valid inference for the difference of two click-through rates: the mixture sequential
 * probability ratio test (mSPRT) with a normal mixing distribution, as in Optimizely's Stats
 * Engine (Johari, Koomen, Pekelis, Walsh, "Always Valid Inference: Continuous Monitoring of A/B
 * Tests", Operations Research 70(3), 2022, §4) and GrowthBook's sequential testing.
 *
 * The difference of the observed rates D = c1/n1 − c2/n2 is approximately N(θ, V) with
 * V = p̄(1 − p̄)·w, w = 1/n1 + 1/n2 (p̄ the pooled rate, as in the z-test). Mixing the
 * likelihood ratio against θ = 0 over θ ~ N(0, τ²·p̄(1 − p̄)) — τ² is a variance of the
 * standardized effect θ / √(p̄(1 − p̄)), so one setting suits a 1 % and a 30 % click-through
 * rate alike — gives the closed form
 *
 *   Λ = √(w / (w + τ²)) · exp(τ² z² / (2 (w + τ²))),   z the pooled two-proportion z statistic,
 *
 * and p = min(1, 1/Λ). By Ville's inequality P(∃ n: Λ_n ≥ 1/α) ≤ α under the null, so p < α
 * at any look — however many looks, whenever one stops — has a false-positive rate of at most
 * α. The p-value depends only on the cumulative counts.
 */
import { twoProportionZTest } from './z-test.js';

/**
 * τ², the mixing variance of the standardized effect. Chosen so that the test is most
 * sensitive around N* = 10,000 impressions per variant: for equal arms w = 2/N, and the
 * boundary is tightest at N* when τ² / w* = −2 ln α + ln(1 − 2 ln α) (Howard, Ramdas,
 * McAuliffe, Sekhon, "Time-uniform, nonparametric, nonasymptotic confidence sequences",
 * Annals of Statistics 49(2), 2021, §3.5): with α = 0.05 that is 7.936, so τ² = 7.936 · 2 / 10,000.
 */
export const TUNED_AT_IMPRESSIONS = 10_000;
export const MIXING_VARIANCE = mixingVarianceFor(TUNED_AT_IMPRESSIONS, 0.05);

export function mixingVarianceFor(impressionsPerVariant: number, alpha: number): number {
  const c = -2 * Math.log(alpha);
  return ((c + Math.log(c + 1)) * 2) / impressionsPerVariant;
}

export interface Counts {
  clicks: number;
  impressions: number;
}

/** The mixture likelihood ratio Λ for a z statistic at weight w = 1/n1 + 1/n2. */
export function mixtureLikelihoodRatio(z: number, w: number, tau2: number = MIXING_VARIANCE): number {
  return Math.sqrt(w / (w + tau2)) * Math.exp((tau2 * z * z) / (2 * (w + tau2)));
}

/**
 * The always-valid p-value of "a and b have the same click-through rate", two-sided.
 * z is the pooled z statistic (positive when a is better); no variance (no clicks at all, or
 * all clicked) is no evidence: p = 1.
 */
export function alwaysValidPValue(a: Counts, b: Counts, tau2: number = MIXING_VARIANCE): { z: number; pValue: number } {
  const { z } = twoProportionZTest(a, b);
  if (z === 0) return { z, pValue: 1 };
  const w = 1 / a.impressions + 1 / b.impressions;
  return { z, pValue: Math.min(1, 1 / mixtureLikelihoodRatio(z, w, tau2)) };
}

/**
 * The always-valid (1 − α) confidence interval of the difference of rates a − b: the
 * differences θ0 the same mSPRT would not reject, centred on the observed difference. Its
 * half-width uses each variant's own variance (unpooled: the interval is about any difference,
 * not only none), so it can disagree with the p-value at the margin.
 */
export function alwaysValidInterval(a: Counts, b: Counts, alpha = 0.05, tau2: number = MIXING_VARIANCE): { estimate: number; low: number; high: number } {
  const pa = rate(a);
  const pb = rate(b);
  const estimate = pa - pb;
  if (a.impressions <= 0 || b.impressions <= 0) return { estimate, low: -1, high: 1 };
  const variance = (pa * (1 - pa)) / a.impressions + (pb * (1 - pb)) / b.impressions;
  // The mixing variance on this scale: τ² times the per-impression variance the estimate implies.
  const w = 1 / a.impressions + 1 / b.impressions;
  const mix = (tau2 * variance) / w;
  if (variance <= 0) return { estimate, low: estimate, high: estimate };
  const halfWidth = Math.sqrt(((2 * variance * (variance + mix)) / mix) * (Math.log(1 / alpha) + 0.5 * Math.log((variance + mix) / variance)));
  return { estimate, low: Math.max(-1, estimate - halfWidth), high: Math.min(1, estimate + halfWidth) };
}

function rate(c: Counts): number {
  return c.impressions > 0 ? c.clicks / c.impressions : 0;
}
