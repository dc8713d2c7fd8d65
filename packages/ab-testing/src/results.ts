import { AppError } from '@inntak/core';
import { requireLevel, type Actor, type WriterLevel } from '@inntak/access';
import { evaluateTest, type UndecidedReason } from './evaluator.js';
import { alwaysValidInterval, alwaysValidPValue } from './msprt.js';
import type { TestKey } from './ports.js';
import { remainingEstimate, type RemainingEstimate } from './estimate.js';
import { ctr, MIN_IMPRESSIONS, type AbStatus } from './types.js';
import type { UncountedReason } from './visitors.js';

/** A variant of a test with the counts of the test's current round (front_page_variant edge, ab_events). */
export interface ResultVariantRow extends TestKey {
  id: string;
  title: string;
  articleTitle: string | null;
  abStatus: AbStatus;
  impressions: number;
  clicks: number;
  /** Impressions of the round shown but not counted, by reason (ab_events uncounted_*). */
  uncounted: Uncounted;
  round: number;
  roundStartedAt: Date | null;
  lastEvaluatedAt: Date | null;
  lastReason: string | null;
  /** The control: the article's own title, made when the test started (metadata control); lift is measured against it. */
  control: boolean;
  /** The test is paused: the front page shows the control and nothing counts (metadata paused). */
  paused: boolean;
}

/** Impressions shown but not counted, by reason (UncountedReason in visitors.ts). */
export type Uncounted = Record<UncountedReason, number>;

export interface DecisionRow extends TestKey {
  round: number;
  kind: string;
  variantId: string | null;
  decidedBy: string | null;
  detail: Record<string, unknown>;
  decidedAt: Date;
}

/** The results' reads (packages/postgres implements them); every read bounded. */
export interface AbResultsStore {
  levelOn(actor: Actor, nodeId: string): Promise<WriterLevel | undefined>;
  isPublication(nodeId: string): Promise<boolean>;
  /** The publication's variants that are or were under test (ab_status set), up to `limit`. */
  testVariants(publicationId: string, limit: number): Promise<ResultVariantRow[]>;
  /** The newest `perTest` history entries of each of the publication's tests. */
  decisions(publicationId: string, perTest: number): Promise<DecisionRow[]>;
}

export interface Interval {
  estimate: number;
  low: number;
  high: number;
}

export interface TestResult {
  article_id: string;
  article_title: string | null;
  variant_type: string;
  /** testing while the evaluator may still decide; decided once a variant is winner. */
  state: 'testing' | 'decided';
  /** The variant lift is measured against: the control (the article's own title) or, in a test from before controls, the first. */
  control: string;
  /** Paused: the front page shows the control and nothing is counted until it is resumed. */
  paused: boolean;
  /** While testing: the impressions per variant the decision rule needs at the rates seen so far (estimate.ts), those still to come, and the days at the round's traffic. */
  estimate: { per_variant: number | null; remaining: number | null; days: number | null } | null;
  round: number;
  round_started_at: string | null;
  last_evaluated_at: string | null;
  /** uncounted: the round's impressions shown to the variant but not counted, by reason. */
  variants: Array<{ edge_id: string; title: string; ab_status: AbStatus; impressions: number; clicks: number; ctr: Interval; uncounted: Uncounted }>;
  /**
   * Every ordered pair: the variant's CTR minus the other's (always-valid 95 % interval), relative
   * lift, always-valid p. Both intervals are clipped to what is possible: a rate lies in [0, 1],
   * so the difference is at least −(the other's rate) and the lift at least −100 %.
   */
  comparisons: Array<{ variant: string; against: string; difference: Interval; lift: Interval | null; p_value: number }>;
  /** Why nothing is decided yet, when testing: a code and a sentence for the editor. */
  undecided: { reason: UndecidedReason; explanation: string } | null;
  sample_ratio: { chi_square: number; p_value: number } | null;
  history: Array<{ kind: string; round: number; edge_id: string | null; decided_by: string | null; decided_at: string; detail: Record<string, unknown> }>;
}

/** Variants read per request; tests beyond are not shown (a publication has far fewer). */
export const MAX_RESULT_VARIANTS = 2000;
/** History entries shown per test, newest first. */
export const MAX_HISTORY_PER_TEST = 50;

/**
 * ab_results: per test of a publication (an article's variants of one type), the current
 * round's impressions, clicks, CTR with a 95 % interval, the difference and relative lift of
 * each variant over each other with an always-valid 95 % interval, the always-valid p-value,
 * why nothing is decided yet, the impressions not counted by reason and the decision history. For the publication's members and up (an
 * editor); 403 below, 404 when the caller cannot see it.
 */
export async function abResults(store: AbResultsStore, actor: Actor, publicationId: string, now: Date = new Date()): Promise<{ publication_id: string; tests: TestResult[] }> {
  await requireLevel(store, actor, publicationId, 'member', 'publication_id');
  if (!(await store.isPublication(publicationId))) throw new AppError('invalid_input', { detail: 'publication_id: er ikke en publikasjon' });
  const [rows, history] = await Promise.all([store.testVariants(publicationId, MAX_RESULT_VARIANTS), store.decisions(publicationId, MAX_HISTORY_PER_TEST)]);
  const tests = new Map<string, ResultVariantRow[]>();
  for (const row of rows) {
    const key = testKey(row);
    tests.set(key, [...(tests.get(key) ?? []), row]);
  }
  const historyOf = new Map<string, DecisionRow[]>();
  for (const entry of history) historyOf.set(testKey(entry), [...(historyOf.get(testKey(entry)) ?? []), entry]);
  return { publication_id: publicationId, tests: [...tests.entries()].map(([key, variants]) => testResult(variants, historyOf.get(key) ?? [], now)) };
}

function testResult(rows: ResultVariantRow[], history: DecisionRow[], now: Date): TestResult {
  const first = rows[0]!;
  // While testing, the variants testing are compared (one retired in an earlier round is only
  // listed); a decided test compares its winner and retired as they ended.
  const testing = rows.filter((r) => r.abStatus === 'testing');
  const decision = testing.length > 0 ? evaluateTest(testing) : undefined;
  const compared = testing.length > 0 ? testing : rows;
  const comparisons: TestResult['comparisons'] = [];
  for (const a of compared) {
    for (const b of compared) {
      if (a === b) continue;
      const base = ctr(b);
      const raw = alwaysValidInterval(a, b);
      // a's rate lies in [0, 1]: a − b in [−b, 1 − b].
      const difference = { estimate: raw.estimate, low: Math.max(raw.low, -base), high: Math.min(raw.high, 1 - base) };
      comparisons.push({
        variant: a.id,
        against: b.id,
        difference,
        // Relative to the other's observed CTR, taken as known: a guide, not an exact interval; never below −100 %.
        lift: base > 0 ? { estimate: difference.estimate / base, low: Math.max(-1, difference.low / base), high: difference.high / base } : null,
        p_value: alwaysValidPValue(a, b).pValue,
      });
    }
  }
  return {
    article_id: first.articleId,
    article_title: first.articleTitle,
    variant_type: first.variantType,
    state: decision ? 'testing' : 'decided',
    control: (rows.find((r) => r.control) ?? first).id,
    paused: testing.some((r) => r.paused),
    estimate: decision?.decision === 'none' && testing.length > 1 ? estimateOf(remainingEstimate(testing, first.roundStartedAt, now)) : null,
    round: first.round,
    round_started_at: first.roundStartedAt?.toISOString() ?? null,
    last_evaluated_at: first.lastEvaluatedAt?.toISOString() ?? null,
    variants: rows.map((r) => ({ edge_id: r.id, title: r.title, ab_status: r.abStatus, impressions: r.impressions, clicks: r.clicks, ctr: wilson(r.clicks, r.impressions), uncounted: { ...r.uncounted } })),
    comparisons,
    undecided: decision?.decision === 'none' ? { reason: decision.reason, explanation: explain(decision.reason, testing) } : null,
    sample_ratio: decision?.sampleRatio ? { chi_square: decision.sampleRatio.chiSquare, p_value: decision.sampleRatio.pValue } : null,
    history: history.map((h) => ({ kind: h.kind, round: h.round, edge_id: h.variantId, decided_by: h.decidedBy, decided_at: h.decidedAt.toISOString(), detail: h.detail })),
  };
}

function estimateOf(e: RemainingEstimate): TestResult['estimate'] {
  return { per_variant: e.perVariant, remaining: e.remaining, days: e.days };
}

/** Wilson's score interval at 95 % (z = 1.959964): sound near 0 %, where click-through rates live. */
export function wilson(clicks: number, impressions: number): Interval {
  if (impressions <= 0) return { estimate: 0, low: 0, high: 1 };
  const z = 1.959963984540054;
  const p = clicks / impressions;
  const denominator = 1 + (z * z) / impressions;
  const centre = (p + (z * z) / (2 * impressions)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / impressions + (z * z) / (4 * impressions * impressions))) / denominator;
  return { estimate: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

function explain(reason: UndecidedReason, rows: ResultVariantRow[]): string {
  switch (reason) {
    case 'too_few_variants':
      return 'Bare én variant er med i testen.';
    case 'too_few_impressions':
      return `For få visninger: hver variant trenger minst ${MIN_IMPRESSIONS} i denne runden (færrest har ${Math.min(...rows.map((r) => r.impressions))}).`;
    case 'sample_ratio_mismatch':
      return 'Visningene fordeler seg ikke jevnt mellom variantene (kji-kvadrat, p < 0,001): noe annet enn leserne styrer fordelingen, så ingenting avgjøres før den er jevn igjen.';
    case 'no_leader':
      return 'To eller flere varianter har like høy klikkrate.';
    case 'not_significant':
      return 'Forskjellen er ikke sikker nok ennå (alltid-gyldig p ≥ 0,05 etter Holm-korreksjon).';
  }
}

function testKey(t: TestKey): string {
  return `${t.publicationId}/${t.articleId}/${t.variantType}`;
}
