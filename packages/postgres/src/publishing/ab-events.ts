import { sql } from 'kysely';
import type { AbCountRow, TestingVariant } from '@inntak/ab-testing';
import { FRONT_PAGE_VARIANT } from './articles.js';
import type { Db, Trx } from './trx.js';

export type { AbCountRow };

/**
 * One batch of counted impressions and clicks (and the uncounted impressions by reason), one statement. Rows of variants deleted since
 * they were counted are dropped (the join), so a vanished edge cannot fail the batch.
 */
export async function recordAbCounts(db: Db, rows: readonly AbCountRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const result = await sql`
    insert into ab_events (variant_edge_id, hour_of_week, impressions, clicks, uncounted_bot, uncounted_prefetch, uncounted_address_cap, uncounted_repeat)
    select r.variant_edge_id, r.hour_of_week, r.impressions, r.clicks,
      coalesce(r.uncounted_bot, 0), coalesce(r.uncounted_prefetch, 0), coalesce(r.uncounted_address_cap, 0), coalesce(r.uncounted_repeat, 0)
    from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
      as r(variant_edge_id uuid, hour_of_week smallint, impressions integer, clicks integer,
        uncounted_bot integer, uncounted_prefetch integer, uncounted_address_cap integer, uncounted_repeat integer)
    join edges e on e.id = r.variant_edge_id and e.edge_type = ${FRONT_PAGE_VARIANT}`.execute(db);
  return Number(result.numAffectedRows ?? 0);
}

/**
 * The variants still `testing` (up to `limit`), locked, each with its AB events of the test's
 * current round summed (ab_tests.round_started_at; a test without a row counts all), ordered by
 * publication, article, variant type and id: the evaluator's read (runAbEvaluation).
 */
export async function testingVariants(trx: Trx, limit: number): Promise<TestingVariant[]> {
  const { rows } = await sql<{ id: string; source_id: string; target_id: string; variant_type: string; impressions: string; clicks: string }>`
    with testing as (
      select id, source_id, target_id, metadata ->> 'variant_type' as variant_type from edges
      where edge_type = ${FRONT_PAGE_VARIANT} and metadata ->> 'ab_status' = 'testing' and not metadata ? 'paused'
      order by source_id, target_id, id
      limit ${limit}
      for update)
    select t.*, coalesce(sum(a.impressions), 0) as impressions, coalesce(sum(a.clicks), 0) as clicks
    from testing t
    left join ab_tests r on r.publication_id = t.source_id and r.article_id = t.target_id and r.variant_type = t.variant_type
    left join ab_events a on a.variant_edge_id = t.id and a.recorded_at >= coalesce(r.round_started_at, '-infinity')
    group by t.id, t.source_id, t.target_id, t.variant_type
    order by t.source_id, t.target_id, t.variant_type, t.id`.execute(trx);
  return rows.map((r) => ({ id: r.id, publicationId: r.source_id, articleId: r.target_id, variantType: r.variant_type, impressions: Number(r.impressions), clicks: Number(r.clicks) }));
}
