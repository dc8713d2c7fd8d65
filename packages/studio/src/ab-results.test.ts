import { describe, expect, it } from '@jest/globals';
import type { TestResult } from '@inntak/ab-testing';
import { cumulativeCtr, estimateInWords, liftInWords, loneViews, testViewOf, uncountedInWords } from './ab-results.js';

const none = { bot: 0, prefetch: 0, address_cap: 0, repeat: 0 };
const interval = (estimate: number) => ({ estimate, low: estimate / 2, high: Math.min(1, estimate * 2) });

function result(overrides: Partial<TestResult> = {}): TestResult {
  return {
    article_id: 'art',
    article_title: 'Brua',
    variant_type: 'headline',
    state: 'testing',
    control: 'a',
    paused: false,
    estimate: null,
    round: 1,
    round_started_at: null,
    last_evaluated_at: null,
    variants: [
      { edge_id: 'a', title: 'Første', ab_status: 'testing', impressions: 70, clicks: 3, ctr: interval(3 / 70), uncounted: none },
      { edge_id: 'b', title: 'Andre', ab_status: 'testing', impressions: 70, clicks: 11, ctr: interval(11 / 70), uncounted: none },
    ],
    comparisons: [
      { variant: 'b', against: 'a', difference: interval(0.11), lift: { estimate: 2.667, low: -0.5, high: 9 }, p_value: 0.2 },
      { variant: 'a', against: 'b', difference: interval(-0.11), lift: { estimate: -0.727, low: -0.9, high: 0.4 }, p_value: 0.2 },
    ],
    undecided: { reason: 'too_few_impressions', explanation: 'For få visninger.' },
    sample_ratio: null,
    history: [],
    ...overrides,
  };
}

describe('testViewOf: the A/B results use case as the page shows it', () => {
  it('takes counts, Wilson interval and the explanation from the results; lift against the first variant', () => {
    const view = testViewOf(result());
    expect(view).toMatchObject({ variantType: 'headline', status: 'testing', round: 1, explanation: 'For få visninger.' });
    expect(view.variants.map((v) => [v.id, v.impressions, v.clicks, v.lift?.estimate ?? null])).toEqual([
      ['a', 70, 3, null],
      ['b', 70, 11, 2.667],
    ]);
    expect(view.variants[1]!.interval).toEqual({ low: 11 / 140, high: 22 / 70 });
  });

  it('a decided test names its winner, and says when an editor chose it', () => {
    const decided = result({
      state: 'decided',
      undecided: null,
      variants: [
        { edge_id: 'a', title: 'Første', ab_status: 'retired', impressions: 70, clicks: 3, ctr: interval(0.04), uncounted: none },
        { edge_id: 'b', title: 'Andre', ab_status: 'winner', impressions: 70, clicks: 11, ctr: interval(0.16), uncounted: none },
      ],
      history: [{ kind: 'override', round: 1, edge_id: 'b', decided_by: 'p', decided_at: '2026-11-25T00:00:00Z', detail: {} }],
    });
    expect(testViewOf(decided).explanation).toBe('Avgjort: «Andre» vant (valgt av en redaktør); de andre er trukket tilbake.');
  });
});

describe('the A/B figures in words an editor reads', () => {
  it('measures lift against the control wherever it stands, and lists it first', () => {
    const view = testViewOf(result({ control: 'b' }));
    expect(view.variants.map((v) => [v.id, v.control, v.lift?.estimate ?? null])).toEqual([
      ['b', true, null],
      ['a', false, -0.727],
    ]);
  });

  it('warns of low data while a test has few impressions or clicks', () => {
    expect(testViewOf(result()).lowData).toBe(true);
    expect(testViewOf(result({ state: 'decided', undecided: null })).lowData).toBe(false);
  });

  it('says a lift in words: how many more or fewer clicks, and whether it is sure', () => {
    expect(liftInWords({ estimate: 2.429, low: -1, high: 7 })).toBe('242,9 % flere klikk enn originalen, men usikkert: alt fra 100 % færre til 700 % flere er mulig.');
    expect(liftInWords({ estimate: 0.2, low: 0.05, high: 0.35 })).toBe('20 % flere klikk enn originalen; sikkert bedre (minst 5 % flere, høyst 35 % flere).');
    expect(liftInWords({ estimate: -0.3, low: -0.5, high: -0.1 })).toBe('30 % færre klikk enn originalen; sikkert dårligere (mellom 10 % færre og 50 % færre).');
  });

  it('says what the test still needs, or why it cannot tell', () => {
    expect(estimateInWords({ perVariant: 12941, remaining: 20000, days: 3.2 })).toContain('omtrent 20 000 visninger til (12 941 per variant): omtrent 4 døgn');
    expect(estimateInWords({ perVariant: null, remaining: null, days: null })).toContain('Ingen forskjell å regne på ennå');
    expect(estimateInWords(null)).toBeUndefined();
  });
});

describe('loneViews', () => {
  it('shows variants alone of their type, not those the results already cover', () => {
    const lone = loneViews(
      [
        { id: 'x', variantType: 'teaser', title: 'Alene', teaser: null, status: null, impressions: 10, clicks: 1 },
        { id: 'y', variantType: 'headline', title: 'I test', teaser: null, status: 'testing', impressions: 10, clicks: 1 },
      ],
      new Set(['headline']),
    );
    expect(lone.map((t) => [t.variantType, t.status, t.variants[0]!.ctr])).toEqual([['teaser', 'alone', 0.1]]);
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

describe('the impressions not counted, in words under the table', () => {
  it('says nothing when every impression counted', () => {
    expect(uncountedInWords(testViewOf(result()))).toBeNull();
  });

  it('sums the variants and names each reason in plain Norwegian', () => {
    const view = testViewOf(
      result({
        variants: [
          { edge_id: 'a', title: 'Første', ab_status: 'testing', impressions: 5000, clicks: 3, ctr: interval(0.01), uncounted: { bot: 500, prefetch: 20, address_cap: 100, repeat: 0 } },
          { edge_id: 'b', title: 'Andre', ab_status: 'testing', impressions: 5000, clicks: 11, ctr: interval(0.01), uncounted: { bot: 400, prefetch: 30, address_cap: 150, repeat: 0 } },
        ],
      }),
    );
    expect(uncountedInWords(view)).toEqual({ summary: 'Ikke telt: 1\u00a0200 visninger (roboter 900, forhåndslasting 50, for mange fra samme adresse 250).', capNotice: null });
  });

  it('explains the per-address cap when it dropped more than a fifth of the readers, naming AB_CLIENTS_PER_ADDRESS', () => {
    const view = testViewOf(
      result({
        variants: [
          { edge_id: 'a', title: 'Første', ab_status: 'testing', impressions: 300, clicks: 3, ctr: interval(0.01), uncounted: { bot: 0, prefetch: 0, address_cap: 200, repeat: 7 } },
          { edge_id: 'b', title: 'Andre', ab_status: 'testing', impressions: 300, clicks: 11, ctr: interval(0.04), uncounted: { bot: 0, prefetch: 0, address_cap: 0, repeat: 0 } },
        ],
      }),
    );
    const words = uncountedInWords(view)!;
    expect(words.summary).toBe('Ikke telt: 207 visninger (for mange fra samme adresse 200, samme leser igjen 7).');
    expect(words.capNotice).toMatch(/^25 % av lesernes visninger ble ikke telt/);
    expect(words.capNotice).toMatch(/mobilnett/);
    expect(words.capNotice).toMatch(/AB_CLIENTS_PER_ADDRESS/);
  });
});
