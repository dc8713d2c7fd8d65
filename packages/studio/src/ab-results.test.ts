import { describe, expect, it } from '@jest/globals';
import { cumulativeCtr, testViews, wilsonInterval } from './ab-results.js';
import type { VariantEntry } from './ports.js';

const variant = (id: string, impressions: number, clicks: number, status: VariantEntry['status'] = 'testing'): VariantEntry => ({
  id,
  variantType: 'headline',
  title: `Tittel ${id}`,
  teaser: null,
  status,
  impressions,
  clicks,
});

describe('wilsonInterval', () => {
  it('matches the textbook 95 % Wilson interval (10 of 100: 5.52 %–17.44 %)', () => {
    const { low, high } = wilsonInterval(10, 100);
    expect(low).toBeCloseTo(0.0552, 4);
    expect(high).toBeCloseTo(0.1744, 4);
  });

  it('stays inside 0–1 at the edges and is the whole range without impressions', () => {
    expect(wilsonInterval(0, 20).low).toBe(0);
    expect(wilsonInterval(20, 20).high).toBe(1);
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
  });
});

describe('testViews: why nothing is decided yet', () => {
  it('too few impressions names the minimum and the fewest', () => {
    const [test] = testViews([variant('a', 150, 5), variant('b', 40, 2)]);
    expect(test!.status).toBe('testing');
    expect(test!.explanation).toBe('Venter på visninger: hver variant trenger minst 100; den med færrest har 40.');
  });

  it('equal rates: no leader', () => {
    expect(testViews([variant('a', 200, 10), variant('b', 200, 10)])[0]!.explanation).toBe('Ingen leder ennå: variantene har lik klikkrate.');
  });

  it('not significant: the p-value and the threshold it must pass', () => {
    expect(testViews([variant('a', 200, 10), variant('b', 200, 12)])[0]!.explanation).toMatch(/^Forskjellen er ikke signifikant ennå \(p = 0\.\d{3}, må være under 0\.050\)\.$/);
  });

  it('significant but not yet evaluated: the evaluator will decide at its next run', () => {
    expect(testViews([variant('a', 1000, 10), variant('b', 1000, 60)])[0]!.explanation).toContain('«Tittel b» blir vinner ved evaluatorens neste kjøring');
  });

  it('decided, alone, lift against the first variant, and one test per variant type', () => {
    const views = testViews([variant('a', 100, 5, 'retired'), variant('b', 100, 10, 'winner'), { ...variant('c', 0, 0, null), variantType: 'teaser' }]);
    expect(views.map((v) => [v.variantType, v.status])).toEqual([
      ['headline', 'decided'],
      ['teaser', 'alone'],
    ]);
    expect(views[0]!.variants.map((v) => v.lift)).toEqual([null, 1]);
  });
});

describe('cumulativeCtr', () => {
  it('accumulates clicks and impressions hour by hour per variant', () => {
    const at = (h: number) => new Date(Date.UTC(2026, 10, 25, h));
    const series = cumulativeCtr([
      { variantId: 'a', hour: at(1), impressions: 10, clicks: 1 },
      { variantId: 'b', hour: at(1), impressions: 0, clicks: 0 },
      { variantId: 'a', hour: at(2), impressions: 10, clicks: 3 },
      { variantId: 'b', hour: at(2), impressions: 4, clicks: 1 },
    ]);
    expect(series).toEqual([
      { variantId: 'a', points: [{ at: at(1), ctr: 0.1 }, { at: at(2), ctr: 0.2 }] },
      { variantId: 'b', points: [{ at: at(2), ctr: 0.25 }] },
    ]);
  });
});
