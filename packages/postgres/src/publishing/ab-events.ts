import { sql } from 'kysely';
import { ctr, evaluateTest, type Comparison, type TestDecision } from '@inntak/ab-testing';
import type { Db } from '../platform/index.js';
import { FRONT_PAGE_VARIANT } from './articles.js';
import { setStatus, writeCounters } from './variants.js';

export interface AbCountRow {
  variant_edge_id: string;
  hour_of_week: number;
  impressions: number;
  clicks: number;
}

/**
 * One batch of counted impressions and clicks, one statement. Rows of variants deleted since
 * they were counted are dropped (the join), so a vanished edge cannot fail the batch.
 */
export async function recordAbCounts(db: Db, rows: readonly AbCountRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await sql`
    insert into ab_events (variant_edge_id, hour_of_week, impressions, clicks)
    select r.variant_edge_id, r.hour_of_week, r.impressions, r.clicks
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      as r(variant_edge_id uuid, hour_of_week smallint, impressions integer, clicks integer)
    join edges e on e.id = r.variant_edge_id and e.edge_type = ${FRONT_PAGE_VARIANT}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

export interface TestReport {
  publication_id: string;
  article_id: string;
  variant_type: string;
  decision: TestDecision['decision'];
  reason?: string;
  winner?: string;
  retired?: string[];
  variants: Array<{ edge_id: string; impressions: number; clicks: number; ctr: number }>;
  comparisons: Array<{ against: string; z: number; p_value: number; threshold: number }>;
}

/** Tests read per run; the rest wait for the next run (every 300 s). */
const MAX_TESTS_PER_RUN = 10_000;

/**
 * The evaluator (every 300 s in the worker, and `inntak ab evaluate`): every variant still
 * `testing`, summed from its AB events, grouped into tests (publication, article, variant type)
 * and decided by evaluateTest. One transaction: the variants are locked, their counters written,
 * and a decided test's winner and retired set.
 */
export async function runAbEvaluation(db: Db): Promise<TestReport[]> {
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ id: string; source_id: string; target_id: string; variant_type: string; impressions: string; clicks: string }>`
      with testing as (
        select id, source_id, target_id, metadata ->> 'variant_type' as variant_type from edges
        where edge_type = ${FRONT_PAGE_VARIANT} and metadata ->> 'ab_status' = 'testing'
        order by source_id, target_id, id
        limit ${MAX_TESTS_PER_RUN * 4}
        for update)
      select t.*, coalesce(sum(a.impressions), 0) as impressions, coalesce(sum(a.clicks), 0) as clicks
      from testing t left join ab_events a on a.variant_edge_id = t.id
      group by t.id, t.source_id, t.target_id, t.variant_type
      order by t.source_id, t.target_id, t.variant_type, t.id`.execute(trx);
    const tests = new Map<string, typeof rows>();
    for (const row of rows) {
      const key = `${row.source_id}/${row.target_id}/${row.variant_type}`;
      const group = tests.get(key);
      if (group) group.push(row);
      else tests.set(key, [row]);
    }
    const reports: TestReport[] = [];
    for (const group of tests.values()) {
      const counts = group.map((r) => ({ id: r.id, impressions: Number(r.impressions), clicks: Number(r.clicks) }));
      const decision = evaluateTest(counts);
      await writeCounters(
        trx,
        counts.map((c) => c.id),
      );
      if (decision.decision === 'winner') {
        await setStatus(trx, [decision.winner], 'winner');
        await setStatus(trx, decision.retired, 'retired');
      }
      const first = group[0]!;
      reports.push({
        publication_id: first.source_id,
        article_id: first.target_id,
        variant_type: first.variant_type,
        decision: decision.decision,
        ...(decision.decision === 'winner' ? { winner: decision.winner, retired: decision.retired } : { reason: decision.reason }),
        variants: counts.map((c) => ({ edge_id: c.id, impressions: c.impressions, clicks: c.clicks, ctr: ctr(c) })),
        comparisons: decision.comparisons.map((c: Comparison) => ({ against: c.against, z: c.z, p_value: c.pValue, threshold: c.threshold })),
      });
    }
    return reports;
  });
}
