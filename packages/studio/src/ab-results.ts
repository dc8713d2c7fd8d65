import type { AbStatus, TestResult } from '@inntak/ab-testing';
import type { VariantEntry, VariantHour } from './ports.js';

/**
 * The console's view of one front-page test (an article's variants of one type), made from the
 * A/B results use case of @inntak/ab-testing (`abResults`, issue 24): its counts of the current
 * round, Wilson intervals, always-valid lifts and its explanation of why nothing is decided
 * yet. Only this module knows that shape; the pages read `TestView`.
 */
export interface VariantResult {
  id: string;
  title: string;
  status: AbStatus | null;
  impressions: number;
  clicks: number;
  ctr: number;
  /** 95 % Wilson score interval of the click-through rate. */
  interval: { low: number; high: number };
  /** Relative to the test's first variant (the original), with its always-valid 95 % interval; null for the first or when it has no clicks. */
  lift: { estimate: number; low: number; high: number } | null;
}

export interface TestView {
  variantType: string;
  status: 'alone' | 'testing' | 'decided';
  round: number | null;
  /** Why nothing is decided yet (or how it was decided), in Norwegian, for the page. */
  explanation: string;
  variants: VariantResult[];
}

/** One test of `abResults` as the page shows it. */
export function testViewOf(test: TestResult): TestView {
  const first = test.variants[0]!;
  const variants = test.variants.map((v): VariantResult => {
    const comparison = v.edge_id === first.edge_id ? undefined : test.comparisons.find((c) => c.variant === v.edge_id && c.against === first.edge_id);
    return {
      id: v.edge_id,
      title: v.title,
      status: v.ab_status,
      impressions: v.impressions,
      clicks: v.clicks,
      ctr: v.ctr.estimate,
      interval: { low: v.ctr.low, high: v.ctr.high },
      lift: comparison?.lift ?? null,
    };
  });
  const winner = test.variants.find((v) => v.ab_status === 'winner');
  const override = test.history.find((h) => h.kind === 'override' && h.edge_id === winner?.edge_id);
  const explanation =
    test.state === 'decided'
      ? winner
        ? `Avgjort: «${winner.title}» vant${override ? ' (valgt av en redaktør)' : ''}; de andre er trukket tilbake.`
        : 'Avgjort.'
      : (test.undecided?.explanation ?? `Signifikant: evaluatoren kårer vinneren ved neste kjøring (hvert 5. minutt).`);
  return { variantType: test.variant_type, status: test.state, round: test.round, explanation, variants };
}

/**
 * Variants not under test (ab_status null: alone of their type), which the results leave out:
 * shown with their counts so an editor sees what a second variant would be tested against.
 */
export function loneViews(variants: readonly VariantEntry[], testedTypes: ReadonlySet<string>): TestView[] {
  return variants
    .filter((v) => v.status === null && !testedTypes.has(v.variantType))
    .map((v) => ({
      variantType: v.variantType,
      status: 'alone' as const,
      round: null,
      explanation: 'Bare én variant av denne typen: legg til en til for å starte en test.',
      variants: [
        {
          id: v.id,
          title: v.title,
          status: null,
          impressions: v.impressions,
          clicks: v.clicks,
          ctr: v.impressions > 0 ? v.clicks / v.impressions : 0,
          interval: { low: 0, high: 1 },
          lift: null,
        },
      ],
    }));
}

export function formatPercent(x: number): string {
  return `${(x * 100).toLocaleString('nb-NO', { maximumFractionDigits: 1 })} %`;
}

export interface CtrSeries {
  variantId: string;
  points: Array<{ at: Date; ctr: number }>;
}

/** Cumulative click-through rate per variant, one point per hour with counts (hours as given, oldest first). */
export function cumulativeCtr(hours: readonly VariantHour[]): CtrSeries[] {
  const totals = new Map<string, { impressions: number; clicks: number; points: CtrSeries['points'] }>();
  for (const h of hours) {
    const t = totals.get(h.variantId) ?? { impressions: 0, clicks: 0, points: [] };
    t.impressions += h.impressions;
    t.clicks += h.clicks;
    if (t.impressions > 0) t.points.push({ at: h.hour, ctr: t.clicks / t.impressions });
    totals.set(h.variantId, t);
  }
  return [...totals].map(([variantId, t]) => ({ variantId, points: t.points }));
}
