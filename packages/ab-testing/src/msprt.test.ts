import { describe, expect, it } from '@jest/globals';
import { alwaysValidInterval, alwaysValidPValue, MIXING_VARIANCE, mixingVarianceFor } from './msprt.js';

/**
 * Reference values computed outside this code with Python 3.11 and SciPy 1.17.1, not from the
 * closed form: the mixture likelihood ratio as the integral
 *   Λ = ∫ φ(D; θ, V) φ(θ; 0, τ² p̄(1 − p̄)) dθ / φ(D; 0, V)     (scipy.integrate.quad)
 * with D = c1/n1 − c2/n2, p̄ pooled, V = p̄(1 − p̄)(1/n1 + 1/n2), p = min(1, 1/Λ); and the
 * interval's ends as the roots (scipy.optimize.brentq) of Λ(θ0) = 1/0.05 with the unpooled
 * variance and the mixing variance τ²·var/w centred at θ0.
 */
const P_VALUES: Array<[c1: number, n1: number, c2: number, n2: number, z: number, p: number]> = [
  [60, 1000, 40, 1000, 2.051956704170308, 0.5276128239287604],
  [300, 5000, 250, 5000, 2.193172316532562, 0.3264773279147282],
  [120, 2000, 100, 2000, 1.3870839642941308, 0.8914727549576159],
  [30, 100, 15, 100, 2.5400025400038095, 0.8195523398197296],
  [700, 10000, 600, 10000, 2.868286431058878, 0.0774474180171972],
  [52, 800, 40, 900, 1.8697476325139994, 0.6404371169282396],
  [800, 10000, 600, 10000, 5.542739954736933, 3.5556941203826467e-6],
  [160, 2000, 100, 2000, 3.8482100632727456, 0.017125612791644342],
  [90, 1000, 50, 1000, 3.505536546997458, 0.08833897363223776],
];

const INTERVALS: Array<[c1: number, n1: number, c2: number, n2: number, low: number, high: number]> = [
  [800, 10000, 600, 10000, 0.009056398353447433, 0.030943601646552573],
  [60, 1000, 40, 1000, -0.017534851836224597, 0.05753485183622458],
  [45, 400, 20, 400, -0.03538195411111634, 0.16038195411111636],
];

describe('the always-valid p-value (mSPRT, normal mixture)', () => {
  it('has the mixing variance tuned to 10,000 impressions per variant (SciPy: 0.001587230920347513)', () => {
    expect(MIXING_VARIANCE).toBeCloseTo(0.001587230920347513, 15);
    expect(mixingVarianceFor(10_000, 0.05)).toBe(MIXING_VARIANCE);
  });

  it.each(P_VALUES)('%i/%i against %i/%i matches the numerically integrated mixture', (c1, n1, c2, n2, z, p) => {
    const result = alwaysValidPValue({ clicks: c1, impressions: n1 }, { clicks: c2, impressions: n2 });
    expect(result.z).toBeCloseTo(z, 10);
    expect(Math.abs(result.pValue - p) / p).toBeLessThan(1e-6);
  });

  it('is never below the fixed-horizon p-value: looking often has a price', () => {
    // 60/1000 against 40/1000: the z-test says 0.040 (SciPy), significant once; the mSPRT 0.53.
    expect(alwaysValidPValue({ clicks: 60, impressions: 1000 }, { clicks: 40, impressions: 1000 }).pValue).toBeGreaterThan(0.04017387028851211);
  });

  it('equal rates, or no clicks at all, give p 1; swapping the variants keeps p', () => {
    expect(alwaysValidPValue({ clicks: 10, impressions: 100 }, { clicks: 10, impressions: 100 }).pValue).toBe(1);
    expect(alwaysValidPValue({ clicks: 0, impressions: 500 }, { clicks: 0, impressions: 500 }).pValue).toBe(1);
    const ab = alwaysValidPValue({ clicks: 160, impressions: 2000 }, { clicks: 100, impressions: 2000 });
    const ba = alwaysValidPValue({ clicks: 100, impressions: 2000 }, { clicks: 160, impressions: 2000 });
    expect(ba.pValue).toBeCloseTo(ab.pValue, 14);
    expect(ba.z).toBeCloseTo(-ab.z, 12);
  });
});

describe('the always-valid interval of the difference of rates', () => {
  it.each(INTERVALS)('%i/%i against %i/%i matches the roots found numerically', (c1, n1, c2, n2, low, high) => {
    const interval = alwaysValidInterval({ clicks: c1, impressions: n1 }, { clicks: c2, impressions: n2 });
    expect(interval.estimate).toBeCloseTo(c1 / n1 - c2 / n2, 14);
    expect(interval.low).toBeCloseTo(low, 9);
    expect(interval.high).toBeCloseTo(high, 9);
  });

  it('narrows as impressions grow at the same rates', () => {
    const width = (n: number) => {
      const i = alwaysValidInterval({ clicks: n * 0.06, impressions: n }, { clicks: n * 0.05, impressions: n });
      return i.high - i.low;
    };
    expect(width(1000)).toBeGreaterThan(width(10_000));
    expect(width(10_000)).toBeGreaterThan(width(100_000));
  });
});
