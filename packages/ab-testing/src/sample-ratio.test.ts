import { describe, expect, it } from '@jest/globals';
import { chiSquareSurvival, sampleRatioTest } from './sample-ratio.js';

describe('sample-ratio mismatch (chi-square against equal shares)', () => {
  // SciPy 1.17.1: scipy.stats.chisquare(impressions) → statistic, p-value.
  it.each([
    [[1000, 1000], 0, 1],
    [[1000, 1100], 4.761904761904762, 0.029096331741252267],
    [[5000, 5300], 8.737864077669903, 0.003116693839866867],
    [[100, 100, 140], 9.411764705882353, 0.009041932521329793],
    [[1000, 1000, 1000, 1200], 28.57142857142857, 2.7553168013358998e-6],
  ])('%j matches scipy.stats.chisquare', (impressions, chiSquare, p) => {
    const result = sampleRatioTest(impressions);
    expect(result.chiSquare).toBeCloseTo(chiSquare, 10);
    expect(Math.abs(result.pValue - p)).toBeLessThan(Math.max(1e-12, p * 2e-7));
    expect(result.mismatch).toBe(p < 0.001);
  });

  it('the survival function matches scipy.stats.chi2.sf for odd and even degrees of freedom', () => {
    const reference: Array<[number, number, number]> = [
      [3.84, 1, 0.05004352124870519],
      [10.83, 1, 0.0009986863791802592],
      [13.82, 2, 0.0009977577964843118],
      [5.0, 3, 0.1717971442967335],
      [16.27, 3, 0.0009982232399054186],
      [20, 4, 0.0004993992273873336],
      [18.47, 4, 0.0009985695222055114],
      [7.5, 5, 0.186029833602867],
    ];
    for (const [x, df, p] of reference) expect(Math.abs(chiSquareSurvival(x, df) - p) / p).toBeLessThan(2e-7);
  });

  it('a split of 1,000 against 1,160 is off (p < 0.001); 1,000 against 1,100 is not', () => {
    expect(sampleRatioTest([1000, 1160]).mismatch).toBe(true);
    expect(sampleRatioTest([1000, 1100]).mismatch).toBe(false);
  });
});
