import { describe, expect, it } from '@jest/globals';
import { runAbEvaluation } from './evaluation.js';
import type { AbTestStore, AbTestTx, TestingVariant } from './ports.js';
import type { AbStatus } from './types.js';

/** An in-memory evaluator port: the variants still testing, and what the use case wrote. */
class MemoryAbTests implements AbTestStore {
  readonly counted: string[][] = [];
  readonly statuses = new Map<string, AbStatus>();
  readonly history: string[] = [];
  readonly reasons = new Map<string, string | null>();
  transactions = 0;
  constructor(private readonly testing: TestingVariant[]) {}

  transaction<T>(work: (tx: AbTestTx) => Promise<T>): Promise<T> {
    this.transactions += 1;
    return work({
      testingVariants: async (limit) => this.testing.slice(0, limit),
      writeCounters: async (ids) => void this.counted.push([...ids]),
      setStatus: async (ids, status) => ids.forEach((id) => this.statuses.set(id, status)),
      startRound: async () => 1,
      recordDecision: async (entry) => void this.history.push(`${entry.test.articleId}:${entry.kind}:${entry.variantId}`),
      recordLook: async (test, reason) => {
        const before = this.reasons.get(test.articleId) ?? null;
        this.reasons.set(test.articleId, reason);
        return before;
      },
    });
  }
}

const variant = (id: string, articleId: string, clicks: number, impressions = 2000): TestingVariant => ({ id, publicationId: 'p', articleId, variantType: 'headline', impressions, clicks });

describe('the A/B evaluator use case', () => {
  it('decides each test apart in one transaction: a significant one gets its winner and retired, an undecided one only its counters', async () => {
    const store = new MemoryAbTests([variant('a1', 'a', 160), variant('a2', 'a', 100), variant('b1', 'b', 20, 50), variant('b2', 'b', 10, 50)]);
    const reports = await runAbEvaluation(store);
    expect(store.transactions).toBe(1);
    expect(store.counted).toEqual([
      ['a1', 'a2'],
      ['b1', 'b2'],
    ]);
    expect(Object.fromEntries(store.statuses)).toEqual({ a1: 'winner', a2: 'retired' });
    expect(reports).toMatchObject([
      { publication_id: 'p', article_id: 'a', variant_type: 'headline', decision: 'winner', winner: 'a1', retired: ['a2'] },
      { article_id: 'b', decision: 'none', reason: 'too_few_impressions' },
    ]);
    expect(store.history).toEqual(['a:winner:a1']);
    expect(Object.fromEntries(store.reasons)).toEqual({ a: null, b: 'too_few_impressions' });
    expect(reports[0]!.variants).toEqual([
      { edge_id: 'a1', impressions: 2000, clicks: 160, ctr: 0.08 },
      { edge_id: 'a2', impressions: 2000, clicks: 100, ctr: 0.05 },
    ]);
  });
});

describe('the evaluator records why it decided nothing', () => {
  it('a split that goes off goes into the history once, not at every look while it stays off', async () => {
    // 1,000 against 1,160 impressions: chi-square p = 0.00058 < 0.001.
    const store = new MemoryAbTests([variant('s1', 's', 300, 1000), variant('s2', 's', 10, 1160)]);
    const [report] = await runAbEvaluation(store);
    await runAbEvaluation(store);
    expect(report).toMatchObject({ decision: 'none', reason: 'sample_ratio_mismatch' });
    expect(report!.sample_ratio!.p_value).toBeLessThan(0.001);
    expect(store.statuses.size).toBe(0);
    expect(store.history).toEqual(['s:sample_ratio_mismatch:null']);
    expect(store.reasons.get('s')).toBe('sample_ratio_mismatch');
  });
});
