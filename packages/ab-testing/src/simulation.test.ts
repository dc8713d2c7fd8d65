import { describe, expect, it } from '@jest/globals';
import { simulate } from './simulation.js';

/**
 * The evaluator under repeated looks, at a small scale (the full run: `npm run bench:ab`):
 * 50 impressions per variant per 300 s look, 288 looks a day, every look decided by
 * evaluateTest itself, a decided test stopping as in the service. Fixed seeds.
 */
const DAY = 288;

describe('A/B simulation: decisions that stay valid under repeated looks', () => {
  it.each([
    ['two variants', [0.05, 0.05]],
    ['three variants', [0.05, 0.05, 0.05]],
  ])('A/A with %s: false winners stay at or below 5 % over 7 days of looks every 300 s', (_name, rates) => {
    const [week] = simulate({ rates, impressionsPerLook: 50, horizons: [7 * DAY], tests: 80, seed: 24 });
    expect(week!.sequentialDecided).toBeLessThanOrEqual(0.05);
    // The old evaluator (the z-test asked at every look) on the same data: far above 5 %.
    expect(week!.peekingDecided).toBeGreaterThan(0.15);
  });

  it('a 5 % → 7.5 % difference is found, for the better variant, within a day in most tests', () => {
    const [day] = simulate({ rates: [0.075, 0.05], impressionsPerLook: 50, horizons: [DAY], tests: 60, seed: 7 });
    expect(day!.sequentialBest).toBeGreaterThan(0.9);
    expect(day!.sequentialDecided).toBe(day!.sequentialBest);
  });
});
