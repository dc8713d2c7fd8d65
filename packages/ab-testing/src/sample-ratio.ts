import { erfc } from './z-test.js';

/** The split is off when a chi-square test of equal shares gives p below this (the threshold). */
export const SAMPLE_RATIO_THRESHOLD = 0.001;

/**
 * Sample-ratio mismatch: every variant of a test is shown with the same probability, so its
 * impressions should be about equal. Pearson's chi-square goodness of fit against equal shares,
 * k − 1 degrees of freedom. A mismatch means the counting, not the readers, decided the split
 * (a bot, a cache, a broken assignment), and then no comparison of the rates can be trusted.
 */
export function sampleRatioTest(impressions: readonly number[]): { chiSquare: number; pValue: number; mismatch: boolean } {
  const total = impressions.reduce((s, n) => s + n, 0);
  if (impressions.length < 2 || total <= 0) return { chiSquare: 0, pValue: 1, mismatch: false };
  const expected = total / impressions.length;
  const chiSquare = impressions.reduce((s, n) => s + (n - expected) ** 2 / expected, 0);
  const pValue = chiSquareSurvival(chiSquare, impressions.length - 1);
  return { chiSquare, pValue, mismatch: pValue < SAMPLE_RATIO_THRESHOLD };
}

/**
 * P(χ²_df > x) for a whole number of degrees of freedom, in closed form (Abramowitz & Stegun
 * 26.4.4 and 26.4.5): even df a finite Poisson sum, odd df the normal tail plus a finite sum.
 */
export function chiSquareSurvival(x: number, df: number): number {
  if (x <= 0) return 1;
  const half = x / 2;
  if (df % 2 === 0) {
    let term = Math.exp(-half);
    let sum = term;
    for (let i = 1; i < df / 2; i++) {
      term *= half / i;
      sum += term;
    }
    return Math.min(1, sum);
  }
  const root = Math.sqrt(x);
  let sum = erfc(root / Math.SQRT2);
  // 2φ(√x) Σ_{j=1}^{(df−1)/2} x^{(2j−1)/2} / (1·3·…·(2j−1))
  let term = Math.sqrt(2 / Math.PI) * Math.exp(-half) * root;
  for (let j = 1; j <= (df - 1) / 2; j++) {
    sum += term;
    term *= x / (2 * j + 1);
  }
  return Math.min(1, sum);
}
