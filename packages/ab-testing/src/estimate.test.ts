import { describe, expect, it } from '@jest/globals';
import { ESTIMATE_POWER, impressionsPerVariantNeeded, remainingEstimate } from './estimate.js';
import { evaluateTest } from './evaluator.js';
import { binomialSampler, mulberry32, simulate } from './simulation.js';
import { MIN_IMPRESSIONS } from './types.js';

/**
 * Reference figures from packages/ab-testing/reference/estimate-reference.py (Python 3.11, SciPy
 * 1.17.1): the mSPRT boundary found by integrating the mixture numerically (scipy.integrate.quad)
 * and solving for it (scipy.optimize.brentq), the power quantile from scipy.stats.norm — none of
 * the closed forms of msprt.ts or estimate.ts.
 */
const REFERENCE: Array<[rates: number[], perVariant: number]> = [
  [[0.05, 0.04], 12940.464529551222],
  [[0.05, 0.06], 15714.367865647242],
  [[0.1, 0.08], 6224.837031038067],
  [[0.02, 0.025], 27156.89910773873],
  [[0.3, 0.27], 6855.262022246075],
  [[0.05, 0.045], 58300.43797173564],
  [[0.05, 0.04, 0.04], 14608.98968941376],
];

/** Share of `tests` simulated tests the evaluator's rule decides at one look after `n` impressions per variant. */
function decidedAtOneLook(rates: number[], n: number, tests: number, seed: number): number {
  const random = mulberry32(seed);
  const draws = rates.map((p) => binomialSampler(n, p));
  let decided = 0;
  for (let t = 0; t < tests; t++) {
    const counts = rates.map((_, i) => ({ id: String(i), impressions: n, clicks: draws[i]!(random) }));
    if (evaluateTest(counts).decision === 'winner') decided += 1;
  }
  return decided / tests;
}

describe('the estimate of the impressions a test still needs', () => {
  it.each(REFERENCE)('for click-through rates %j matches the numerically integrated reference', (rates, perVariant) => {
    const estimate = impressionsPerVariantNeeded(rates)!;
    expect(Math.abs(estimate - perVariant) / perVariant).toBeLessThan(0.001);
  });

  it.each([
    [[0.05, 0.04], 1],
    [[0.1, 0.08], 2],
    [[0.3, 0.27], 3],
  ])('for %j: simulated traffic at the estimated count is decided by the rule about as often as intended (80 %%)', (rates, seed) => {
    const n = impressionsPerVariantNeeded(rates)!;
    // One look at n: the rule's own decision on 2,000 simulated tests (standard error ≈ 0.9 points).
    const share = decidedAtOneLook(rates, n, 2000, seed);
    expect(share).toBeGreaterThan(ESTIMATE_POWER - 0.04);
    expect(share).toBeLessThan(ESTIMATE_POWER + 0.04);
    // The evaluator looks all along and stops at the first crossing: by n it has decided at least as often.
    const looks = 40;
    const [atN] = simulate({ rates, impressionsPerLook: Math.ceil(n / looks), horizons: [looks], tests: 400, seed });
    expect(atN!.sequentialDecided).toBeGreaterThanOrEqual(ESTIMATE_POWER - 0.04);
  });

  it('with three variants the leader must pass both comparisons: the rule decides a little under the intended 80 % (77 % simulated)', () => {
    const rates = [0.05, 0.04, 0.04];
    expect(decidedAtOneLook(rates, impressionsPerVariantNeeded(rates)!, 1500, 4)).toBeGreaterThan(ESTIMATE_POWER - 0.04);
  });

  it('has nothing to estimate from while the rates are equal or there are no clicks', () => {
    expect(impressionsPerVariantNeeded([0.05, 0.05])).toBeNull();
    expect(impressionsPerVariantNeeded([0, 0])).toBeNull();
    expect(impressionsPerVariantNeeded([0.05])).toBeNull();
  });

  it('never asks for fewer than the minimum impressions per variant', () => {
    expect(impressionsPerVariantNeeded([0.9, 0.1])).toBe(MIN_IMPRESSIONS);
  });

  it('tells the impressions still to come and the days they take at the round’s traffic', () => {
    const start = new Date('2026-11-01T00:00:00Z');
    const now = new Date('2026-11-02T00:00:00Z');
    const variants = [
      { id: 'a', impressions: 1000, clicks: 50 },
      { id: 'b', impressions: 1000, clicks: 40 },
    ];
    const estimate = remainingEstimate(variants, start, now);
    const needed = impressionsPerVariantNeeded([0.05, 0.04])!;
    expect(estimate.perVariant).toBe(needed);
    expect(estimate.remaining).toBe(2 * (needed - 1000));
    // 2,000 impressions in one day.
    expect(estimate.days).toBeCloseTo(estimate.remaining! / 2000, 6);
    // Under an hour of traffic is no rate to go by.
    expect(remainingEstimate(variants, new Date(now.getTime() - 60_000), now).days).toBeNull();
  });
});
