import { describe, expect, it } from '@jest/globals';
import { evaluateTest } from './evaluator.js';

const v = (id: string, clicks: number, impressions: number) => ({ id, clicks, impressions });

describe('evaluator decisions', () => {
  it('a significant difference (p < 0.05) makes the better variant winner and retires the other', () => {
    // 30/100 against 15/100: p = 0.0111 (SciPy reference in z-test.test.ts).
    const decision = evaluateTest([v('b', 15, 100), v('a', 30, 100)]);
    expect(decision).toMatchObject({ decision: 'winner', winner: 'a', retired: ['b'] });
    expect(decision.comparisons[0]!.pValue).toBeCloseTo(0.011085166, 6);
  });

  it('99 impressions on one variant: no decision, however large the difference', () => {
    expect(evaluateTest([v('a', 60, 99), v('b', 1, 100)])).toMatchObject({ decision: 'none', reason: 'too_few_impressions' });
    expect(evaluateTest([v('a', 60, 100), v('b', 1, 100)])).toMatchObject({ decision: 'winner', winner: 'a' });
  });

  it('a difference that is not significant decides nothing', () => {
    // 20/100 against 12/100: p = 0.1228.
    expect(evaluateTest([v('a', 20, 100), v('b', 12, 100)])).toMatchObject({ decision: 'none', reason: 'not_significant' });
  });

  it('a tie for the lead decides nothing', () => {
    expect(evaluateTest([v('a', 30, 100), v('b', 30, 100), v('c', 1, 100)])).toMatchObject({ decision: 'none', reason: 'no_leader' });
  });

  it('a lone variant is no test', () => {
    expect(evaluateTest([v('a', 30, 100)])).toMatchObject({ decision: 'none', reason: 'too_few_variants' });
  });

  describe('more than two variants: the leader against each other, Holm-corrected', () => {
    it('wins when the smallest p is below 0.05/2 and the next below 0.05', () => {
      // SciPy: 60/400 vs 39/400 p = 0.02415 (< 0.025), vs 40/400 p = 0.03251 (< 0.05).
      const decision = evaluateTest([v('a', 60, 400), v('b', 40, 400), v('c', 39, 400)]);
      expect(decision).toMatchObject({ decision: 'winner', winner: 'a' });
      expect(decision.decision === 'winner' && [...decision.retired].sort()).toEqual(['b', 'c']);
      expect(decision.comparisons.map((c) => [c.against, c.threshold])).toEqual([
        ['c', 0.025],
        ['b', 0.05],
      ]);
    });

    it('does not win when each comparison alone is below 0.05 but the correction is not met', () => {
      // SciPy: 60/400 vs 40/400 p = 0.03251, vs 41/400 p = 0.04312: both < 0.05, smallest ≥ 0.025.
      const decision = evaluateTest([v('a', 60, 400), v('b', 40, 400), v('c', 41, 400)]);
      expect(decision).toMatchObject({ decision: 'none', reason: 'not_significant' });
      expect(decision.comparisons.every((c) => c.pValue < 0.05)).toBe(true);
    });

    it('does not win when the leader is not better than every other variant', () => {
      // vs 35/400 p = 0.0063, vs 44/400 p = 0.0926.
      expect(evaluateTest([v('a', 60, 400), v('b', 35, 400), v('c', 44, 400)])).toMatchObject({ decision: 'none', reason: 'not_significant' });
    });
  });
});
