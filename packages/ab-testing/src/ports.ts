import type { AbStatus } from './types.js';

/** One batch row of counted impressions and clicks of a variant in an hour of the week (ab_events). */
export interface AbCountRow {
  variant_edge_id: string;
  hour_of_week: number;
  impressions: number;
  clicks: number;
  /** Impressions shown but not counted, by reason (UncountedReason); absent is 0. */
  uncounted_bot?: number;
  uncounted_prefetch?: number;
  uncounted_address_cap?: number;
  uncounted_repeat?: number;
}

/** A test: the variants of one type for one article of a publication. */
export interface TestKey {
  publicationId: string;
  articleId: string;
  variantType: string;
}

/** A variant still `testing`, with its AB events of the test's current round summed. */
export interface TestingVariant extends TestKey {
  id: string;
  impressions: number;
  clicks: number;
}

/** An entry of a test's decision history (table ab_decisions); the adapter adds the round and the time. */
export interface DecisionEntry {
  test: TestKey;
  kind: 'winner' | 'override' | 'sample_ratio_mismatch';
  variantId: string | null;
  /** The person who decided; null for the evaluator. */
  decidedBy: string | null;
  detail: Record<string, unknown>;
}

/** The writes an A/B decision makes: counters brought up to date, statuses set. */
export interface AbDecisionWrites {
  /** Sums each variant's AB events into its metadata (impressions, clicks, ctr), where they changed. */
  writeCounters(variantIds: readonly string[]): Promise<void>;
  /** Sets the variants' ab_status (those that already have it are left as they are). */
  setStatus(variantIds: readonly string[], status: AbStatus): Promise<void>;
  /**
   * Starts a new round of the test (the first, or the next): counts from now on, the start in
   * the history with who started it and the variant that made it start. Returns the round.
   */
  startRound(test: TestKey, startedBy: string | null, variantId: string): Promise<number>;
  /** Appends to the test's decision history (in its current round); a decision clears last_reason. */
  recordDecision(entry: DecisionEntry): Promise<void>;
}

export interface AbTestTx extends AbDecisionWrites {
  /**
   * Up to `limit` variants still `testing`, locked for the transaction, ordered by publication,
   * article, variant type and id.
   */
  testingVariants(limit: number): Promise<TestingVariant[]>;
  /** Records the look at a test (time, and why it decided nothing, or null); returns the reason of the look before. */
  recordLook(test: TestKey, reason: string | null): Promise<string | null>;
}

/** The evaluator's port: one transaction of plain reads and writes (packages/postgres implements it). */
export interface AbTestStore {
  transaction<T>(work: (tx: AbTestTx) => Promise<T>): Promise<T>;
}
