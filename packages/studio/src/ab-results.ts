import { ctr, evaluateTest, MIN_IMPRESSIONS, type AbStatus } from '@inntak/ab-testing';
import type { VariantEntry, VariantHour } from './ports.js';

/**
 * The console's view of one front-page test (an article's variants of one type). Kept in this
 * one module so it can switch to the A/B results use case of @inntak/ab-testing (issue 24) when
 * that lands: the pages only read `TestView`.
 */
export interface VariantResult {
  id: string;
  title: string;
  teaser: string | null;
  status: AbStatus | null;
  impressions: number;
  clicks: number;
  ctr: number;
  /** 95 % Wilson score interval of the click-through rate. */
  interval: { low: number; high: number };
  /** Relative to the test's first variant (the original): ctr / ctr(first) − 1; null for the first or when it has no clicks. */
  lift: number | null;
}

export interface TestView {
  variantType: string;
  status: 'alone' | 'testing' | 'decided';
  /** Why nothing is decided yet (or who decided), in Norwegian, for the page. */
  explanation: string;
  variants: VariantResult[];
}

const Z95 = 1.959963984540054;

/** The Wilson score interval: stays inside [0, 1] and is sensible for few impressions, unlike p ± z·se. */
export function wilsonInterval(clicks: number, impressions: number, z = Z95): { low: number; high: number } {
  if (impressions === 0) return { low: 0, high: 1 };
  const p = clicks / impressions;
  const z2 = z * z;
  const centre = p + z2 / (2 * impressions);
  const margin = z * Math.sqrt((p * (1 - p)) / impressions + z2 / (4 * impressions * impressions));
  const denominator = 1 + z2 / impressions;
  return { low: Math.max(0, (centre - margin) / denominator), high: Math.min(1, (centre + margin) / denominator) };
}

const percent = (x: number) => `${(x * 100).toLocaleString('nb-NO', { maximumFractionDigits: 1 })} %`;

/** The article's variants grouped into tests by variant type, in the order given (oldest variant first). */
export function testViews(variants: readonly VariantEntry[]): TestView[] {
  const byType = new Map<string, VariantEntry[]>();
  for (const v of variants) byType.set(v.variantType, [...(byType.get(v.variantType) ?? []), v]);
  return [...byType].map(([variantType, group]) => testView(variantType, group));
}

function testView(variantType: string, group: readonly VariantEntry[]): TestView {
  const first = group[0]!;
  const results = group.map((v): VariantResult => ({
    id: v.id,
    title: v.title,
    teaser: v.teaser,
    status: v.status,
    impressions: v.impressions,
    clicks: v.clicks,
    ctr: ctr(v),
    interval: wilsonInterval(v.clicks, v.impressions),
    lift: v.id === first.id || ctr(first) === 0 ? null : ctr(v) / ctr(first) - 1,
  }));
  const winner = group.find((v) => v.status === 'winner');
  if (winner) return { variantType, status: 'decided', explanation: `Avgjort: «${winner.title}» vant; de andre er trukket tilbake.`, variants: results };
  const testing = group.filter((v) => v.status === 'testing');
  if (testing.length < 2) return { variantType, status: 'alone', explanation: 'Bare én variant i spill: legg til en til for å starte en test.', variants: results };
  return { variantType, status: 'testing', explanation: whyUndecided(testing), variants: results };
}

/** The evaluator's own rule (evaluateTest), explained. */
function whyUndecided(testing: readonly VariantEntry[]): string {
  const decision = evaluateTest(testing);
  if (decision.decision === 'winner') {
    const title = testing.find((v) => v.id === decision.winner)!.title;
    return `Signifikant: «${title}» blir vinner ved evaluatorens neste kjøring (hvert 5. minutt).`;
  }
  switch (decision.reason) {
    case 'too_few_impressions': {
      const fewest = Math.min(...testing.map((v) => v.impressions));
      return `Venter på visninger: hver variant trenger minst ${MIN_IMPRESSIONS}; den med færrest har ${fewest}.`;
    }
    case 'no_leader':
      return 'Ingen leder ennå: variantene har lik klikkrate.';
    case 'not_significant': {
      const worst = decision.comparisons.reduce((a, b) => (b.pValue / b.threshold > a.pValue / a.threshold ? b : a));
      return `Forskjellen er ikke signifikant ennå (p = ${worst.pValue.toFixed(3)}, må være under ${worst.threshold.toFixed(3)}).`;
    }
    default:
      return 'Bare én variant i spill.';
  }
}

export function formatPercent(x: number): string {
  return percent(x);
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
