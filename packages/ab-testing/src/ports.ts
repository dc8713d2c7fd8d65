import type { AbStatus } from './types.js';

/** One batch row of counted impressions and clicks of a variant in an hour of the week (ab_events). */
export interface AbCountRow {
  variant_edge_id: string;
  hour_of_week: number;
  impressions: number;
  clicks: number;
}

/** A variant still `testing`, with its AB events summed. */
export interface TestingVariant {
  id: string;
  publicationId: string;
  articleId: string;
  variantType: string;
  impressions: number;
  clicks: number;
}

/** The writes an A/B decision makes: counters brought up to date, statuses set. */
export interface AbDecisionWrites {
  /** Sums each variant's AB events into its metadata (impressions, clicks, ctr), where they changed. */
  writeCounters(variantIds: readonly string[]): Promise<void>;
  /** Sets the variants' ab_status (those that already have it are left as they are). */
  setStatus(variantIds: readonly string[], status: AbStatus): Promise<void>;
}

export interface AbTestTx extends AbDecisionWrites {
  /**
   * Up to `limit` variants still `testing`, locked for the transaction, ordered by publication,
   * article, variant type and id.
   */
  testingVariants(limit: number): Promise<TestingVariant[]>;
}

/** The evaluator's port: one transaction of plain reads and writes (packages/postgres implements it). */
export interface AbTestStore {
  transaction<T>(work: (tx: AbTestTx) => Promise<T>): Promise<T>;
}
