import { describe, expect, it } from '@jest/globals';
import { erfc, twoProportionZTest } from './z-test.js';

/**
 * Reference values computed outside this code, with Python 3 and SciPy 1.17.1: z by the pooled
 * two-proportion formula written out by hand, p = 2 * scipy.stats.norm.sf(abs(z)):
 *
 *   p = (c1 + c2) / (n1 + n2); se = sqrt(p * (1 - p) * (1/n1 + 1/n2)); z = (c1/n1 - c2/n2) / se
 */
const REFERENCE: Array<[c1: number, n1: number, c2: number, n2: number, z: number, p: number]> = [
  [30, 100, 15, 100, 2.5400025400038095, 0.011085166380602711],
  [20, 100, 12, 100, 1.5430334996209194, 0.12282264810139244],
  [200, 1000, 160, 1000, 2.3281009858985944, 0.019906741973363732],
  [45, 500, 25, 500, 2.478788664079177, 0.01318293900551698],
  [5, 120, 1, 130, 1.7535293380534924, 0.07951118817842046],
  [60, 400, 35, 400, 2.7323016288682496, 0.006289353265389961],
];

describe('two-proportion z-test', () => {
  it.each(REFERENCE)('%i/%i against %i/%i matches the SciPy reference', (c1, n1, c2, n2, z, p) => {
    const result = twoProportionZTest({ clicks: c1, impressions: n1 }, { clicks: c2, impressions: n2 });
    expect(result.z).toBeCloseTo(z, 10);
    // erfc's fit is good to a fractional 1.2e-7.
    expect(Math.abs(result.pValue - p) / p).toBeLessThan(2e-7);
  });

  it('is symmetric: swapping the variants flips z and keeps p', () => {
    const ab = twoProportionZTest({ clicks: 30, impressions: 100 }, { clicks: 15, impressions: 100 });
    const ba = twoProportionZTest({ clicks: 15, impressions: 100 }, { clicks: 30, impressions: 100 });
    expect(ba.z).toBeCloseTo(-ab.z, 12);
    expect(ba.pValue).toBeCloseTo(ab.pValue, 12);
  });

  it('equal rates give z 0 and p 1; no variance (no clicks at all) gives p 1', () => {
    expect(twoProportionZTest({ clicks: 10, impressions: 100 }, { clicks: 10, impressions: 100 })).toEqual({ z: 0, pValue: 1 });
    expect(twoProportionZTest({ clicks: 0, impressions: 500 }, { clicks: 0, impressions: 500 })).toEqual({ z: 0, pValue: 1 });
  });

  it('erfc matches known values (Abramowitz & Stegun table 7.1: erfc(0)=1, erfc(1)=0.157299207, erfc(2)=0.004677735)', () => {
    expect(erfc(0)).toBeCloseTo(1, 7);
    expect(erfc(1)).toBeCloseTo(0.157299207, 7);
    expect(erfc(2)).toBeCloseTo(0.004677735, 8);
    expect(erfc(-1)).toBeCloseTo(2 - 0.157299207, 7);
  });
});
