import { sql } from 'kysely';
import type { DecisionEntry, DecisionRow, ResultVariantRow, TestKey } from '@inntak/ab-testing';
import { FRONT_PAGE_VARIANT } from './articles.js';
import type { Db, Trx } from './trx.js';

/** A new round of the test, from now: round 1 for a new test, the next for one that had rounds. */
export async function startRound(trx: Trx, test: TestKey, startedBy: string | null, variantId: string): Promise<number> {
  const { rows } = await sql<{ round: number }>`
    with started as (
      insert into ab_tests (publication_id, article_id, variant_type)
      values (${test.publicationId}, ${test.articleId}, ${test.variantType})
      on conflict (publication_id, article_id, variant_type) do update
        set round = ab_tests.round + 1, round_started_at = now(), last_reason = null
      returning round)
    insert into ab_decisions (publication_id, article_id, variant_type, round, kind, variant_edge_id, decided_by)
    select ${test.publicationId}, ${test.articleId}, ${test.variantType}, round, 'round_started', ${variantId}, ${startedBy} from started
    returning round`.execute(trx);
  return rows[0]!.round;
}

/** An entry of the history in the test's current round (1 for a test from before rounds); a decision clears last_reason. */
export async function recordDecision(trx: Trx, entry: DecisionEntry): Promise<void> {
  const { test } = entry;
  await sql`
    with t as (
      insert into ab_tests (publication_id, article_id, variant_type, round_started_at)
      values (${test.publicationId}, ${test.articleId}, ${test.variantType}, '-infinity')
      on conflict (publication_id, article_id, variant_type) do update
        set last_reason = case when ${entry.kind} = 'sample_ratio_mismatch' then ab_tests.last_reason end
      returning round)
    insert into ab_decisions (publication_id, article_id, variant_type, round, kind, variant_edge_id, decided_by, detail)
    select ${test.publicationId}, ${test.articleId}, ${test.variantType}, round, ${entry.kind}, ${entry.variantId}, ${entry.decidedBy}, ${JSON.stringify(entry.detail)}::jsonb
    from t`.execute(trx);
}

/** Records a look: its time and why it decided nothing (null: decided); answers the reason of the look before. */
export async function recordLook(trx: Trx, test: TestKey, reason: string | null): Promise<string | null> {
  const { rows } = await sql<{ before: string | null }>`
    with before as (
      select last_reason from ab_tests
      where publication_id = ${test.publicationId} and article_id = ${test.articleId} and variant_type = ${test.variantType})
    insert into ab_tests (publication_id, article_id, variant_type, round_started_at, last_evaluated_at, last_reason)
    values (${test.publicationId}, ${test.articleId}, ${test.variantType}, '-infinity', now(), ${reason})
    on conflict (publication_id, article_id, variant_type) do update
      set last_evaluated_at = now(), last_reason = excluded.last_reason
    returning (select last_reason from before) as before`.execute(trx);
  return rows[0]?.before ?? null;
}

/**
 * The publication's variants that are or were under test, with their test's round and the
 * round's counts: the results' read. Variants left over from a test's earlier round (retired
 * before it restarted) are shown with the current round's counts, that is none.
 */
export async function resultVariants(db: Db, publicationId: string, limit: number): Promise<ResultVariantRow[]> {
  const { rows } = await sql<{
    id: string;
    article_id: string;
    article_title: string | null;
    variant_type: string;
    title: string;
    ab_status: 'testing' | 'winner' | 'retired';
    impressions: string;
    clicks: string;
    uncounted: { bot: string; prefetch: string; address_cap: string; repeat: string } | null;
    round: number | null;
    round_started_at: Date | null;
    last_evaluated_at: Date | null;
    last_reason: string | null;
    control: boolean;
    paused: boolean;
  }>`
    with variants as (
      select v.id, v.target_id as article_id, v.metadata ->> 'variant_type' as variant_type, coalesce(v.metadata ->> 'title', '') as title,
        v.metadata ->> 'ab_status' as ab_status, coalesce((v.metadata ->> 'control')::boolean, false) as control,
        coalesce((v.metadata ->> 'paused')::boolean, false) as paused
      from edges v
      where v.source_id = ${publicationId} and v.edge_type = ${FRONT_PAGE_VARIANT} and v.metadata ->> 'ab_status' in ('testing', 'winner', 'retired')
      order by v.target_id, v.metadata ->> 'variant_type', v.id
      limit ${limit})
    select v.*, n.title as article_title, r.round, r.round_started_at, r.last_evaluated_at, r.last_reason,
      coalesce((select sum(a.impressions) from ab_events a where a.variant_edge_id = v.id and a.recorded_at >= coalesce(r.round_started_at, '-infinity')), 0) as impressions,
      coalesce((select sum(a.clicks) from ab_events a where a.variant_edge_id = v.id and a.recorded_at >= coalesce(r.round_started_at, '-infinity')), 0) as clicks,
      (select jsonb_build_object('bot', coalesce(sum(a.uncounted_bot), 0), 'prefetch', coalesce(sum(a.uncounted_prefetch), 0),
          'address_cap', coalesce(sum(a.uncounted_address_cap), 0), 'repeat', coalesce(sum(a.uncounted_repeat), 0))
        from ab_events a where a.variant_edge_id = v.id and a.recorded_at >= coalesce(r.round_started_at, '-infinity')) as uncounted
    from variants v
    join nodes n on n.id = v.article_id
    left join ab_tests r on r.publication_id = ${publicationId} and r.article_id = v.article_id and r.variant_type = v.variant_type
    order by v.article_id, v.variant_type, v.id`.execute(db);
  return rows.map((r) => ({
    id: r.id,
    publicationId,
    articleId: r.article_id,
    articleTitle: r.article_title,
    variantType: r.variant_type,
    title: r.title,
    abStatus: r.ab_status,
    impressions: Number(r.impressions),
    clicks: Number(r.clicks),
    uncounted: {
      bot: Number(r.uncounted?.bot ?? 0),
      prefetch: Number(r.uncounted?.prefetch ?? 0),
      address_cap: Number(r.uncounted?.address_cap ?? 0),
      repeat: Number(r.uncounted?.repeat ?? 0),
    },
    round: r.round ?? 1,
    roundStartedAt: r.round_started_at && Number.isFinite(r.round_started_at.getTime()) ? r.round_started_at : null,
    lastEvaluatedAt: r.last_evaluated_at,
    lastReason: r.last_reason,
    control: r.control,
    paused: r.paused,
  }));
}

/** The newest `perTest` history entries of each of the publication's tests. */
export async function decisionsOf(db: Db, publicationId: string, perTest: number): Promise<DecisionRow[]> {
  const { rows } = await sql<{ article_id: string; variant_type: string; round: number; kind: string; variant_edge_id: string | null; decided_by: string | null; detail: Record<string, unknown>; decided_at: Date }>`
    select article_id, variant_type, round, kind, variant_edge_id, decided_by, detail, decided_at from (
      select d.*, row_number() over (partition by d.article_id, d.variant_type order by d.id desc) as nth
      from ab_decisions d where d.publication_id = ${publicationId}) d
    where nth <= ${perTest}
    order by article_id, variant_type, id desc`.execute(db);
  return rows.map((r) => ({ publicationId, articleId: r.article_id, variantType: r.variant_type, round: r.round, kind: r.kind, variantId: r.variant_edge_id, decidedBy: r.decided_by, detail: r.detail, decidedAt: r.decided_at }));
}
