import { sql } from 'kysely';
import type { AbStatus } from '@inntak/ab-testing';
import { FRONT_PAGE_VARIANT } from './articles.js';
import type { Trx } from './trx.js';

/** The article's variants of a type in the publication, by id, locked. */
export async function variantsOfType(trx: Trx, publicationId: string, articleId: string, variantType: string) {
  const { rows } = await sql<{ id: string; ab_status: AbStatus | null }>`
    select id, metadata ->> 'ab_status' as ab_status from edges
    where source_id = ${publicationId} and edge_type = ${FRONT_PAGE_VARIANT} and target_id = ${articleId}
      and metadata ->> 'variant_type' = ${variantType}
    order by id
    for update`.execute(trx);
  return rows;
}

export async function setStatus(trx: Trx, edgeIds: readonly string[], status: AbStatus): Promise<void> {
  if (edgeIds.length === 0) return;
  await sql`update edges set metadata = metadata || jsonb_build_object('ab_status', ${status}::text)
    where id = any(${edgeIds}::uuid[]) and metadata ->> 'ab_status' is distinct from ${status}::text`.execute(trx);
}

/** Marks the variants paused or not (metadata paused; absent when not). */
export async function setPaused(trx: Trx, edgeIds: readonly string[], paused: boolean): Promise<void> {
  if (edgeIds.length === 0) return;
  if (paused) await sql`update edges set metadata = metadata || '{"paused": true}'::jsonb where id = any(${edgeIds}::uuid[]) and not metadata ? 'paused'`.execute(trx);
  else await sql`update edges set metadata = metadata - 'paused' where id = any(${edgeIds}::uuid[]) and metadata ? 'paused'`.execute(trx);
}

/** Sums each variant's AB events of its test's current round into its metadata (impressions, clicks, ctr), where they changed. */
export async function writeCounters(trx: Trx, edgeIds: readonly string[]): Promise<void> {
  if (edgeIds.length === 0) return;
  await sql`
    with counts as (
      select v.id, coalesce(sum(a.impressions), 0)::bigint as impressions, coalesce(sum(a.clicks), 0)::bigint as clicks
      from edges v
      left join ab_tests r on r.publication_id = v.source_id and r.article_id = v.target_id and r.variant_type = v.metadata ->> 'variant_type'
      left join ab_events a on a.variant_edge_id = v.id and a.recorded_at >= coalesce(r.round_started_at, '-infinity')
      where v.id = any(${edgeIds}::uuid[]) group by v.id)
    update edges e set metadata = e.metadata || jsonb_build_object(
        'impressions', c.impressions, 'clicks', c.clicks,
        'ctr', case when c.impressions > 0 then round(c.clicks::numeric / c.impressions, 6) else 0 end)
    from counts c
    where e.id = c.id and (e.metadata -> 'impressions' is distinct from to_jsonb(c.impressions) or e.metadata -> 'clicks' is distinct from to_jsonb(c.clicks))`.execute(trx);
}

/** Sets keys of an edge's metadata and removes others, in one statement. */
export async function patchEdgeMetadata(trx: Trx, edgeId: string, set: Record<string, unknown>, remove: readonly string[]): Promise<void> {
  await sql`update edges set metadata = (metadata - ${[...remove]}::text[]) || ${JSON.stringify(set)}::jsonb where id = ${edgeId}`.execute(trx);
}
