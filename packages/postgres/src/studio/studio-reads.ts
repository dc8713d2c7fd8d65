import { sql } from 'kysely';
import type { Actor } from '@inntak/access';
import { isAbStatus } from '@inntak/ab-testing';
import type { ArticleEntry, CollectionEntry, FailingWebhook, MemberEntry, OrchestrationEntry, PersonEntry, PublicationEntry, StudioReads, VariantHour, WritableCollection } from '@inntak/studio';
import * as collectionReads from './collection-reads.js';
import type { Db } from '../platform/index.js';
import { accessLevelOf, hasAccessAtLeast, nodeVisibleTo } from '../graph/index.js';
import { failingWebhooks, personName } from './studio-attention.js';

/**
 * The console's reads (packages/studio ports.ts). Each filters by the caller's access rows (a
 * system administrator sees all) and reads a bounded page; what the console then does goes
 * through the use cases.
 */
export class PostgresStudioReads implements StudioReads {
  constructor(private readonly db: Db) {}

  // Collections and their members (issue 39): collection-reads.ts.
  collections(actor: Actor, limit: number): Promise<CollectionEntry[]> {
    return collectionReads.collections(this.db, actor, limit);
  }

  collection(actor: Actor, collectionId: string): Promise<CollectionEntry | undefined> {
    return collectionReads.collection(this.db, actor, collectionId);
  }

  members(collectionId: string, limit: number): Promise<MemberEntry[]> {
    return collectionReads.members(this.db, collectionId, limit);
  }

  persons(actor: Actor, search: string, limit: number): Promise<PersonEntry[]> {
    return collectionReads.persons(this.db, actor, search, limit);
  }

  personName(personId: string): Promise<string | null> {
    return personName(this.db, personId);
  }

  failingWebhooks(actor: Actor, since: Date, limit: number): Promise<{ webhooks: FailingWebhook[]; total: number }> {
    return failingWebhooks(this.db, actor, since, limit);
  }

  private publicationQuery(actor: Actor) {
    const callerId = actor.personId;
    return this.db
      .selectFrom('nodes as n')
      .select([
        'n.id',
        sql<string>`coalesce(n.metadata -> 'publication' ->> 'title', n.title, '')`.as('title'),
        sql<string>`n.metadata -> 'publication' ->> 'slug'`.as('slug'),
        callerId === null ? sql<string | null>`null`.as('level') : accessLevelOf(callerId, 'n').as('level'),
      ])
      .where('n.node_kind', '=', 'collection')
      .where(sql<boolean>`n.metadata ? 'publication'`)
      .$if(!actor.isAdmin, (q) => q.where(callerId === null ? sql<boolean>`false` : hasAccessAtLeast(callerId, 'member', 'n')));
  }

  async publications(actor: Actor, limit: number): Promise<PublicationEntry[]> {
    return this.publicationQuery(actor).orderBy('title').orderBy('n.id').limit(limit).execute();
  }

  async publication(actor: Actor, publicationId: string): Promise<PublicationEntry | undefined> {
    return this.publicationQuery(actor).where('n.id', '=', publicationId).executeTakeFirst();
  }

  async articles(publicationId: string, window: { limit: number; offset: number }): Promise<ArticleEntry[]> {
    const { rows: articles } = await sql<{ id: string; title: string | null; edge_id: string; published_at: Date }>`
      select n.id, n.title, e.id as edge_id, e.created_at as published_at
      from edges e join nodes n on n.id = e.source_id
      where e.target_id = ${publicationId} and e.edge_type = 'published_in'
      order by e.created_at desc, e.id desc
      limit ${window.limit} offset ${window.offset}`.execute(this.db);
    if (articles.length === 0) return [];
    // Counts from the AB events (what the evaluator judges), not the edge's copy, which lags.
    const { rows: variants } = await sql<{ id: string; target_id: string; metadata: Record<string, unknown>; impressions: string; clicks: string }>`
      select v.id, v.target_id, v.metadata, coalesce(sum(a.impressions), 0) as impressions, coalesce(sum(a.clicks), 0) as clicks
      from edges v left join ab_events a on a.variant_edge_id = v.id
      where v.source_id = ${publicationId} and v.edge_type = 'front_page_variant'
        and v.target_id = any(${articles.map((a) => a.id)}::uuid[])
      group by v.id
      order by v.created_at, v.id`.execute(this.db);
    return articles.map((a) => ({
      id: a.id,
      title: a.title,
      publishedEdgeId: a.edge_id,
      publishedAt: a.published_at,
      variants: variants
        .filter((v) => v.target_id === a.id)
        .map((v) => ({
          id: v.id,
          variantType: String(v.metadata.variant_type ?? ''),
          title: String(v.metadata.title ?? ''),
          teaser: typeof v.metadata.teaser === 'string' ? v.metadata.teaser : null,
          status: isAbStatus(v.metadata.ab_status) ? v.metadata.ab_status : null,
          impressions: Number(v.impressions),
          clicks: Number(v.clicks),
        })),
    }));
  }

  async variantHours(variantIds: readonly string[], maxHours: number): Promise<VariantHour[]> {
    if (variantIds.length === 0) return [];
    const { rows } = await sql<{ variant_edge_id: string; hour: Date; impressions: string; clicks: string }>`
      with events as (
        select a.variant_edge_id, v.target_id, v.metadata ->> 'variant_type' as variant_type, a.recorded_at, a.impressions, a.clicks
        from ab_events a
        join edges v on v.id = a.variant_edge_id
        left join ab_tests t on t.publication_id = v.source_id and t.article_id = v.target_id and t.variant_type = v.metadata ->> 'variant_type'
        where a.variant_edge_id = any(${variantIds}::uuid[]) and (t.round_started_at is null or a.recorded_at >= t.round_started_at)),
      -- A test younger than six hours is drawn per 5 minutes, so its chart has points in the first hour.
      step as (
        select target_id, variant_type, case when max(recorded_at) - min(recorded_at) < interval '6 hours' then interval '5 minutes' else interval '1 hour' end as width
        from events group by 1, 2),
      counted as (
        select e.variant_edge_id, date_bin(s.width, e.recorded_at, timestamptz '2000-01-01') as hour, sum(e.impressions) as impressions, sum(e.clicks) as clicks
        from events e join step s using (target_id, variant_type)
        group by 1, 2)
      select * from counted
      where hour > (select max(hour) from counted) - make_interval(hours => ${maxHours})
      order by hour, variant_edge_id`.execute(this.db);
    return rows.map((r) => ({ variantId: r.variant_edge_id, hour: r.hour, impressions: Number(r.impressions), clicks: Number(r.clicks) }));
  }

  async writableCollections(actor: Actor, limit: number): Promise<WritableCollection[]> {
    const callerId = actor.personId;
    return this.db
      .selectFrom('nodes as n')
      .select([
        'n.id',
        sql<string>`coalesce(n.metadata -> 'publication' ->> 'title', n.title, '')`.as('title'),
        sql<string | null>`n.metadata -> 'publication' ->> 'slug'`.as('publicationSlug'),
      ])
      .where('n.node_kind', '=', 'collection')
      .$if(!actor.isAdmin, (q) => q.where(callerId === null ? sql<boolean>`false` : hasAccessAtLeast(callerId, 'member', 'n')))
      .orderBy(sql`n.metadata ? 'publication'`, 'desc')
      .orderBy('title')
      .orderBy('n.id')
      .limit(limit)
      .execute();
  }

  async orchestrations(actor: Actor, limit: number): Promise<OrchestrationEntry[]> {
    const callerId = actor.personId;
    // Admin on the orchestration (what its log's use case asks), grouped by the collection it
    // belongs to when the caller may see that collection.
    const mayAdminister = actor.isAdmin ? sql<boolean>`true` : callerId === null ? sql<boolean>`false` : hasAccessAtLeast(callerId, 'admin', 'o');
    const seesCollection = actor.isAdmin || callerId === null ? sql<boolean>`true` : nodeVisibleTo(callerId, 'c');
    const { rows } = await sql<{ id: string; title: string | null; metadata: Record<string, unknown>; collection_id: string | null; collection_title: string | null }>`
      select o.id, o.title, o.metadata, c.id as collection_id, c.title as collection_title
      from nodes o
      left join lateral (
        select c.id, c.title from edges b join nodes c on c.id = b.target_id
        where b.source_id = o.id and b.edge_type = 'belongs_to' and ${seesCollection}
        order by b.created_at limit 1) c on true
      where o.node_kind = 'orchestration' and ${mayAdminister}
      order by c.title nulls last, c.id, o.title, o.id
      limit ${limit}`.execute(this.db);
    return rows.map((r) => {
      const trigger = r.metadata.trigger as { event?: unknown } | undefined;
      return {
        id: r.id,
        title: r.title,
        collectionId: r.collection_id,
        collectionTitle: r.collection_title,
        trigger: typeof trigger?.event === 'string' ? trigger.event : null,
        enabled: r.metadata.enabled !== false,
      };
    });
  }
}
