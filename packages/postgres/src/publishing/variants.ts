import { sql, type Transaction } from 'kysely';
import { AppError } from '@inntak/core';
import { edgeRule, type Actor } from '@inntak/access';
import type { AbStatus } from '@inntak/ab-testing';
import type { Database, Db } from '../platform/index.js';
import { insertEdge } from '../graph/index.js';
import { FRONT_PAGE_VARIANT, PUBLISHED_IN } from './articles.js';
import { requirePublication } from './publications.js';

type Trx = Transaction<Database>;

export interface NewVariant {
  publication_id: string;
  article_id: string;
  variant_type: string;
  title: string;
  teaser?: string | null;
}

/**
 * A front-page variant of a published article (the write policy's front_page_variant rule: admin
 * on the publication; the same rule deletes one, through delete_edge). When another variant
 * of the same type is still in play (not retired), this is a test: every variant of the type in
 * play becomes `testing` (SPEC: States and transitions), a previous winner included, so a new
 * challenger is tested against it. Runs under the publication's row lock.
 */
export async function createVariant(db: Db, actor: Actor, input: NewVariant): Promise<{ edge_id: string; ab_status: 'testing' | null }> {
  const rule = edgeRule(FRONT_PAGE_VARIANT).create;
  return db.transaction().execute(async (trx) => {
    await requirePublication(trx, actor, input.publication_id, 'publication_id', rule.source);
    const { rows: published } = await sql`
      select 1 from edges where source_id = ${input.article_id} and target_id = ${input.publication_id} and edge_type = ${PUBLISHED_IN}`.execute(trx);
    if (published.length === 0) throw new AppError('conflict', { detail: 'artikkelen er ikke publisert i publikasjonen' });
    const inPlay = (await variantsOfType(trx, input.publication_id, input.article_id, input.variant_type)).filter((v) => v.ab_status !== 'retired');
    const abStatus = inPlay.length > 0 ? ('testing' as const) : null;
    if (abStatus) await setStatus(trx, inPlay.map((v) => v.id), 'testing');
    const edgeId = await insertEdge(trx, {
      source_id: input.publication_id,
      target_id: input.article_id,
      edge_type: FRONT_PAGE_VARIANT,
      metadata: {
        variant_type: input.variant_type,
        title: input.title,
        ...(input.teaser ? { teaser: input.teaser } : {}),
        ab_status: abStatus,
        impressions: 0,
        clicks: 0,
        ctr: 0,
      },
      created_by: actor.personId,
    });
    return { edge_id: edgeId, ab_status: abStatus };
  });
}

/**
 * The editor's override (owner or admin of the publication; 403 otherwise): the variant becomes
 * `winner`, the others of its type `retired`. Their counters are brought up to date on the way.
 */
export async function abOverride(db: Db, actor: Actor, input: { edge_id: string }): Promise<{ edge_id: string; ab_status: 'winner'; retired: string[] }> {
  return db.transaction().execute(async (trx) => {
    const edge = await trx
      .selectFrom('edges')
      .select(['id', 'source_id', 'target_id', 'metadata'])
      .where('id', '=', input.edge_id)
      .where('edge_type', '=', FRONT_PAGE_VARIANT)
      .executeTakeFirst();
    if (!edge) throw new AppError('not_found', { detail: 'edge_id' });
    await requirePublication(trx, actor, edge.source_id, 'edge_id');
    const siblings = await variantsOfType(trx, edge.source_id, edge.target_id, String(edge.metadata.variant_type));
    const retired = siblings.filter((v) => v.id !== edge.id).map((v) => v.id);
    await writeCounters(trx, siblings.map((v) => v.id));
    await setStatus(trx, [edge.id], 'winner');
    await setStatus(trx, retired, 'retired');
    return { edge_id: edge.id, ab_status: 'winner', retired };
  });
}

async function variantsOfType(trx: Trx, publicationId: string, articleId: string, variantType: string) {
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

/** Sums each variant's AB events into its metadata (impressions, clicks, ctr), where they changed. */
export async function writeCounters(trx: Trx, edgeIds: readonly string[]): Promise<void> {
  if (edgeIds.length === 0) return;
  await sql`
    with counts as (
      select v.id, coalesce(sum(a.impressions), 0)::bigint as impressions, coalesce(sum(a.clicks), 0)::bigint as clicks
      from edges v left join ab_events a on a.variant_edge_id = v.id
      where v.id = any(${edgeIds}::uuid[]) group by v.id)
    update edges e set metadata = e.metadata || jsonb_build_object(
        'impressions', c.impressions, 'clicks', c.clicks,
        'ctr', case when c.impressions > 0 then round(c.clicks::numeric / c.impressions, 6) else 0 end)
    from counts c
    where e.id = c.id and (e.metadata -> 'impressions' is distinct from to_jsonb(c.impressions) or e.metadata -> 'clicks' is distinct from to_jsonb(c.clicks))`.execute(trx);
}
