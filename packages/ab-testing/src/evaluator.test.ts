import { describe, expect, it } from '@jest/globals';
import { evaluateTest } from './evaluator.js';

const v = (id: string, clicks: number, impressions: number) => ({ id, clicks, impressions });

// Always-valid p-values below: SciPy references in msprt.test.ts (and /tmp reference scripts
// described there: the mixture integrated numerically).
describe('evaluator decisions', () => {
  it('a significant always-valid difference (p < 0.05) makes the better variant winner and retires the other', () => {
    // 160/2000 against 100/2000: always-valid p = 0.017126.
    const decision = evaluateTest([v('b', 100, 2000), v('a', 160, 2000)]);
    expect(decision).toMatchObject({ decision: 'winner', winner: 'a', retired: ['b'] });
    expect(decision.comparisons[0]!.pValue).toBeCloseTo(0.017125612791644342, 8);
  });

  it('a difference the fixed-horizon z-test calls significant, looked at repeatedly, decides nothing', () => {
    // 60/1000 against 40/1000: z-test p = 0.040, always-valid p = 0.528.
    const decision = evaluateTest([v('a', 60, 1000), v('b', 40, 1000)]);
    expect(decision).toMatchObject({ decision: 'none', reason: 'not_significant' });
    expect(decision.comparisons[0]!.pValue).toBeCloseTo(0.5276128239287604, 8);
  });

  it('99 impressions on one variant: no decision, however large the difference', () => {
    expect(evaluateTest([v('a', 60, 99), v('b', 1, 100)])).toMatchObject({ decision: 'none', reason: 'too_few_impressions' });
    // At 100 each the rates are compared (60/100 against 1/100: p = 0.0508, just not enough).
    const at100 = evaluateTest([v('a', 60, 100), v('b', 1, 100)]);
    expect(at100).toMatchObject({ decision: 'none', reason: 'not_significant' });
    // (The numerical integral is less exact at z ≈ 8.9: compared to 5 decimals.)
    expect(at100.comparisons[0]!.pValue).toBeCloseTo(0.05077226823435624, 5);
  });

  it('while the impressions split unevenly (sample-ratio mismatch, p < 0.001) nothing is decided', () => {
    // 1,000 against 1,160 impressions: chi-square 11.85, p = 0.00058 (SciPy), however clear the rates.
    const decision = evaluateTest([v('a', 300, 1000), v('b', 10, 1160)]);
    expect(decision).toMatchObject({ decision: 'none', reason: 'sample_ratio_mismatch' });
    expect(decision.sampleRatio!.pValue).toBeCloseTo(0.0005760403386062825, 9);
  });

  it('a tie for the lead decides nothing', () => {
    expect(evaluateTest([v('a', 300, 1000), v('b', 300, 1000), v('c', 1, 1000)])).toMatchObject({ decision: 'none', reason: 'no_leader' });
  });

  it('a lone variant is no test', () => {
    expect(evaluateTest([v('a', 30, 100)])).toMatchObject({ decision: 'none', reason: 'too_few_variants' });
  });

  describe('more than two variants: the leader against each other, Holm-corrected', () => {
    it('wins when the smallest p is below 0.05/2 and the next below 0.05', () => {
      // 170/2000 vs 100/2000 p = 0.00411 (< 0.025), vs 105/2000 p = 0.01020 (< 0.05).
      const decision = evaluateTest([v('a', 170, 2000), v('b', 105, 2000), v('c', 100, 2000)]);
      expect(decision).toMatchObject({ decision: 'winner', winner: 'a' });
      expect(decision.decision === 'winner' && [...decision.retired].sort()).toEqual(['b', 'c']);
      expect(decision.comparisons.map((c) => [c.against, c.threshold])).toEqual([
        ['c', 0.025],
        ['b', 0.05],
      ]);
    });

    it('does not win when each comparison alone is below 0.05 but the correction is not met', () => {
      // 168/2000 vs 110/2000 p = 0.0298, vs 111/2000 p = 0.0346: both < 0.05, smallest ≥ 0.025.
      const decision = evaluateTest([v('a', 168, 2000), v('b', 110, 2000), v('c', 111, 2000)]);
      expect(decision).toMatchObject({ decision: 'none', reason: 'not_significant' });
      expect(decision.comparisons.every((c) => c.pValue < 0.05)).toBe(true);
    });

    it('does not win when the leader is not better than every other variant', () => {
      // vs 95/2000 p = 0.0015, vs 140/2000 p = 0.61.
      expect(evaluateTest([v('a', 170, 2000), v('b', 95, 2000), v('c', 140, 2000)])).toMatchObject({ decision: 'none', reason: 'not_significant' });
    });
  });
});
