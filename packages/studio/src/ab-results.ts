import type { AbStatus, TestResult, Uncounted } from '@inntak/ab-testing';
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
  /** Relative to the test's control (the article's own title), with its always-valid 95 % interval (≥ −100 %); null for the control or when it has no clicks. */
  lift: { estimate: number; low: number; high: number } | null;
  /** The control: the article's own title, which the others are measured against. */
  control: boolean;
}

export interface TestView {
  variantType: string;
  status: 'alone' | 'testing' | 'decided';
  round: number | null;
  /** Why nothing is decided yet (or how it was decided), in Norwegian, for the page. */
  explanation: string;
  variants: VariantResult[];
  paused: boolean;
  /** Too little data to read anything into the figures yet (LOW_DATA_*): the page warns. */
  lowData: boolean;
  /** While testing: what the decision rule still needs (estimate.ts in @inntak/ab-testing). */
  estimate: { perVariant: number | null; remaining: number | null; days: number | null } | null;
  roundStartedAt: Date | null;
  /** The round's impressions shown but not counted, summed over the variants, by reason. */
  uncounted: Uncounted;
  /** The impressions counted in the round, summed over the variants. */
  counted: number;
}

/** Below this many impressions per variant, or clicks in all, the page warns that the figures may still turn. */
export const LOW_DATA_IMPRESSIONS = 1000;
export const LOW_DATA_CLICKS = 30;

/** One test of `abResults` as the page shows it. */
export function testViewOf(test: TestResult): TestView {
  const control = test.control;
  // The control first: the table reads from it.
  const ordered = [...test.variants].sort((a, b) => Number(b.edge_id === control) - Number(a.edge_id === control));
  const variants = ordered.map((v): VariantResult => {
    const comparison = v.edge_id === control ? undefined : test.comparisons.find((c) => c.variant === v.edge_id && c.against === control);
    return {
      id: v.edge_id,
      title: v.title,
      status: v.ab_status,
      impressions: v.impressions,
      clicks: v.clicks,
      ctr: v.ctr.estimate,
      interval: { low: v.ctr.low, high: v.ctr.high },
      lift: comparison?.lift ?? null,
      control: v.edge_id === control,
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
  const lowData = test.state === 'testing' && (Math.min(...variants.map((v) => v.impressions)) < LOW_DATA_IMPRESSIONS || variants.reduce((sum, v) => sum + v.clicks, 0) < LOW_DATA_CLICKS);
  const estimate = test.estimate && { perVariant: test.estimate.per_variant, remaining: test.estimate.remaining, days: test.estimate.days };
  return {
    variantType: test.variant_type,
    status: test.state,
    round: test.round,
    explanation,
    variants,
    paused: test.paused,
    lowData,
    estimate,
    roundStartedAt: test.round_started_at ? new Date(test.round_started_at) : null,
    uncounted: {
      bot: sum(test.variants.map((v) => v.uncounted.bot)),
      prefetch: sum(test.variants.map((v) => v.uncounted.prefetch)),
      address_cap: sum(test.variants.map((v) => v.uncounted.address_cap)),
      repeat: sum(test.variants.map((v) => v.uncounted.repeat)),
    },
    counted: sum(test.variants.map((v) => v.impressions)),
  };
}

/**
 * The lift in words an editor reads: how many more or fewer clicks than the control, what the
 * interval allows, and whether it is sure. "+242,9 % (−800 % til +800 %)" became
 * "243 % flere klikk enn originalen, men usikkert: alt fra 100 % færre til 700 % flere er mulig".
 */
export function liftInWords(lift: { estimate: number; low: number; high: number }): string {
  const amount = (x: number) => `${formatPercent(Math.abs(x))} ${x >= 0 ? 'flere' : 'færre'}`;
  const point = lift.estimate === 0 ? 'Like mange klikk som originalen' : `${amount(lift.estimate)} klikk enn originalen`;
  if (lift.low > 0) return `${point}; sikkert bedre (minst ${amount(lift.low)}, høyst ${amount(lift.high)}).`;
  if (lift.high < 0) return `${point}; sikkert dårligere (mellom ${amount(lift.high)} og ${amount(lift.low)}).`;
  return `${point}, men usikkert: alt fra ${amount(lift.low)} til ${amount(lift.high)} er mulig.`;
}

/** The estimate in words: impressions and days still needed, or why there is no estimate yet. */
export function estimateInWords(estimate: TestView['estimate']): string | undefined {
  if (!estimate) return undefined;
  if (estimate.perVariant === null || estimate.remaining === null) return 'Ingen forskjell å regne på ennå, så ingen anslag over hvor lenge testen trenger.';
  if (estimate.remaining === 0) return 'Testen har nok visninger til å avgjøres hvis forskjellen holder seg; evaluatoren ser på den hvert 5. minutt.';
  const count = estimate.remaining.toLocaleString('nb-NO');
  const days = estimate.days === null ? 'for tidlig til å si hvor mange dager' : estimate.days < 1 ? 'under ett døgn' : `omtrent ${Math.ceil(estimate.days).toLocaleString('nb-NO')} døgn`;
  return `Om forskjellen holder seg, trenger testen omtrent ${count} visninger til (${estimate.perVariant.toLocaleString('nb-NO')} per variant): ${days} med trafikken så langt. Da avgjør den i minst 8 av 10 tilfeller.`;
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
          control: false,
        },
      ],
      paused: false,
      lowData: false,
      estimate: null,
      roundStartedAt: null,
      uncounted: { bot: 0, prefetch: 0, address_cap: 0, repeat: 0 },
      counted: v.impressions,
    }));
}

export function formatPercent(x: number): string {
  return `${(x * 100).toLocaleString('nb-NO', { maximumFractionDigits: 1 })} %`;
}

export interface CtrSeries {
  variantId: string;
  points: Array<{ at: Date; ctr: number }>;
}

/** Cumulative click-through rate per variant, one point per period with counts (periods as given, oldest first: 5 minutes in a young test, hours later). */
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

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** Above this share of a round's first views from readers (counted + address_cap), the page explains the per-address cap. */
export const ADDRESS_CAP_SHARE_NOTICE = 0.2;

/**
 * The impressions not counted, in words under the test's table: "Ikke telt: 1 200 visninger
 * (roboter 900, forhåndslasting 50, for mange fra samme adresse 250)"; null when none. `capNotice`
 * when the cap dropped more than ADDRESS_CAP_SHARE_NOTICE of the readers' first views: bots,
 * prefetches and reloads are not readers the test lost, so they are left out of that share.
 */
export function uncountedInWords(test: Pick<TestView, 'uncounted' | 'counted'>): { summary: string; capNotice: string | null } | null {
  const u = test.uncounted;
  const total = u.bot + u.prefetch + u.address_cap + u.repeat;
  if (total === 0) return null;
  const n = (x: number) => x.toLocaleString('nb-NO');
  const parts = [
    [u.bot, 'roboter'],
    [u.prefetch, 'forhåndslasting'],
    [u.address_cap, 'for mange fra samme adresse'],
    [u.repeat, 'samme leser igjen'],
  ] as const;
  const summary = `Ikke telt: ${n(total)} ${total === 1 ? 'visning' : 'visninger'} (${parts
    .filter(([count]) => count > 0)
    .map(([count, words]) => `${words} ${n(count)}`)
    .join(', ')}).`;
  const readers = test.counted + u.address_cap;
  const share = readers > 0 ? u.address_cap / readers : 0;
  const capNotice =
    share > ADDRESS_CAP_SHARE_NOTICE
      ? `${Math.round(share * 100)} % av lesernes visninger ble ikke telt fordi for mange lesere kom fra samme adresse. Hver adresse (en IPv4-adresse eller et IPv6-/48-nett) teller høyst et fast antall lesere per tidsvindu (som standard 16 per døgn), så én maskin ikke kan avgjøre en test. Men mange ekte lesere kan dele en adresse, for eksempel bak et mobilnett eller på en arbeidsplass. Driftsansvarlig kan øke grensen med innstillingen AB_CLIENTS_PER_ADDRESS.`
      : null;
  return { summary, capNotice };
}
