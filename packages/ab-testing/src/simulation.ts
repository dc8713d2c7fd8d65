import { evaluateTest } from './evaluator.js';
import { SIGNIFICANCE, ctr, type VariantCounts } from './types.js';
import { twoProportionZTest } from './z-test.js';

/**
 * A simulation of the evaluator (issue 24): tests whose variants get `impressionsPerLook`
 * impressions each between two looks (300 s apart in the service), clicks drawn at each
 * variant's true rate. At every look evaluateTest — the evaluator's own decision — is asked,
 * and a decided test stops, as in the service. Beside it, the fixed-horizon z-test (the spec's
 * test, Holm across three or more variants) looked at once, at each horizon; and the same
 * z-test asked at every look (what the evaluator did before: "peeking").
 */
export interface SimulationSpec {
  /** True click-through rate per variant; the first is the best (or all equal, A/A). */
  rates: readonly number[];
  impressionsPerLook: number;
  /** Looks at which to report (ascending); the simulation runs to the last. */
  horizons: readonly number[];
  tests: number;
  seed: number;
}

export interface HorizonResult {
  looks: number;
  /** Share of tests the always-valid evaluator had decided by this look, and of those for the best variant. */
  sequentialDecided: number;
  sequentialBest: number;
  /** Share of tests the fixed-horizon z-test, looked at only here, decides; and for the best variant. */
  fixedDecided: number;
  fixedBest: number;
  /** Share of tests the z-test asked at every look had decided by here (the old evaluator). */
  peekingDecided: number;
}

export function simulate(spec: SimulationSpec): HorizonResult[] {
  const k = spec.rates.length;
  const random = mulberry32(spec.seed);
  const draws = spec.rates.map((p) => binomialSampler(spec.impressionsPerLook, p));
  const clicks = new Float64Array(spec.tests * k);
  const sequential = new Int32Array(spec.tests).fill(-1); // look of decision, and winner below
  const sequentialWinner = new Int32Array(spec.tests);
  const peeking = new Int32Array(spec.tests).fill(-1);
  const fixed = spec.horizons.map(() => ({ decided: 0, best: 0 }));
  const last = spec.horizons[spec.horizons.length - 1]!;
  const counts: VariantCounts[] = spec.rates.map((_, i) => ({ id: String(i), impressions: 0, clicks: 0 }));
  for (let look = 1, h = 0; look <= last; look++) {
    const impressions = look * spec.impressionsPerLook;
    const atHorizon = spec.horizons[h] === look;
    for (let t = 0; t < spec.tests; t++) {
      for (let v = 0; v < k; v++) {
        clicks[t * k + v]! += draws[v]!(random);
        counts[v] = { id: String(v), impressions, clicks: clicks[t * k + v]! };
      }
      if (sequential[t] === -1) {
        const decision = evaluateTest(counts);
        if (decision.decision === 'winner') {
          sequential[t] = look;
          sequentialWinner[t] = Number(decision.winner);
        }
      }
      if (peeking[t] === -1 || atHorizon) {
        const winner = zTestWinner(counts);
        if (winner !== undefined && peeking[t] === -1) peeking[t] = look;
        if (atHorizon && winner !== undefined) {
          fixed[h]!.decided += 1;
          if (winner === 0) fixed[h]!.best += 1;
        }
      }
    }
    if (atHorizon) h += 1;
  }
  return spec.horizons.map((looks, i) => {
    let decided = 0;
    let best = 0;
    let peeked = 0;
    for (let t = 0; t < spec.tests; t++) {
      if (sequential[t] !== -1 && sequential[t]! <= looks) {
        decided += 1;
        if (sequentialWinner[t] === 0) best += 1;
      }
      if (peeking[t] !== -1 && peeking[t]! <= looks) peeked += 1;
    }
    const n = spec.tests;
    return { looks, sequentialDecided: decided / n, sequentialBest: best / n, fixedDecided: fixed[i]!.decided / n, fixedBest: fixed[i]!.best / n, peekingDecided: peeked / n };
  });
}

/** The spec's fixed-horizon rule: leader against each other by the pooled z-test, Holm-corrected. */
function zTestWinner(variants: readonly VariantCounts[]): number | undefined {
  const ranked = [...variants].sort((a, b) => ctr(b) - ctr(a));
  const [leader, ...others] = ranked as [VariantCounts, ...VariantCounts[]];
  if (leader.impressions < 100 || ctr(others[0]!) === ctr(leader)) return undefined;
  const ps = others.map((o) => twoProportionZTest(leader, o).pValue).sort((a, b) => a - b);
  return ps.every((p, i) => p < SIGNIFICANCE / (ps.length - i)) ? Number(leader.id) : undefined;
}

/**
 * Binomial(n, p) draws from one uniform each: by the inverse of the exact distribution function
 * for the small counts of one look, by the normal approximation when n·p·(1 − p) is large.
 */
export function binomialSampler(n: number, p: number): (random: () => number) => number {
  const variance = n * p * (1 - p);
  if (variance > 100) {
    const sd = Math.sqrt(variance);
    return (random) => Math.max(0, Math.min(n, Math.round(n * p + sd * normalDraw(random))));
  }
  const cdf: number[] = [];
  let pmf = (1 - p) ** n;
  let total = 0;
  for (let i = 0; i <= n; i++) {
    total += pmf;
    cdf.push(total);
    pmf *= ((n - i) / (i + 1)) * (p / (1 - p));
  }
  return (random) => {
    const u = random() * total;
    let i = 0;
    while (i < n && u > cdf[i]!) i++;
    return i;
  };
}

function normalDraw(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** A seeded generator (mulberry32): the same seed, the same simulation. */
export function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
