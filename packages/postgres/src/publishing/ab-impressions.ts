import { sql } from 'kysely';
import type { Db } from './trx.js';

/**
 * The A/B impressions every API process shares (table ab_impressions, issue 38): the store behind
 * apps/api's AbClientGate. Structurally its ImpressionStore port.
 */
export class PostgresImpressionStore {
  constructor(private readonly db: Db) {}

  /**
   * One statement per front page: the new rows are inserted if the client is one of at most
   * `cap` clients of its network this window (concurrent first renders of one network may pass
   * the cap by the few that race), and the rows already there are read from the statement's
   * snapshot, which does not see the inserted ones: each article comes back once.
   */
  async record(
    window: number,
    who: { client: string; network: string },
    cap: number,
    publicationId: string,
    rows: { article: string; id: string; variant: string }[],
  ): Promise<{ article: string; variant: string; counted: boolean }[]> {
    if (rows.length === 0) return [];
    const { rows: found } = await sql<{ article: string; variant: string; counted: boolean }>`
      with allowed as (
        select exists (select 1 from ab_impressions where window_index = ${window} and network = ${who.network} and client = ${who.client})
            or (select count(distinct client) from ab_impressions where window_index = ${window} and network = ${who.network}) < ${cap} as ok),
      inserted as (
        insert into ab_impressions (window_index, client, network, publication_id, article_id, id, variant_edge_id)
        select ${window}, ${who.client}, ${who.network}, ${publicationId}, r.article, r.id, r.variant
        from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(article uuid, id text, variant uuid), allowed
        where allowed.ok
        on conflict do nothing
        returning article_id, variant_edge_id)
      select article_id::text as article, variant_edge_id::text as variant, true as counted from inserted
      union all
      select article_id::text, variant_edge_id::text, false from ab_impressions
      where window_index = ${window} and client = ${who.client} and publication_id = ${publicationId}
        and article_id = any(${rows.map((r) => r.article)}::uuid[])`.execute(this.db);
    return found;
  }

  async click(windows: number[], id: string, publicationId: string, articleId: string, variantId: string): Promise<boolean> {
    const result = await sql`update ab_impressions set clicked = true
      where id = ${id} and window_index = any(${windows}::integer[]) and publication_id = ${publicationId}
        and article_id = ${articleId} and variant_edge_id = ${variantId} and not clicked`.execute(this.db);
    return Number(result.numAffectedRows ?? 0) === 1;
  }

  async prune(window: number): Promise<void> {
    await sql`delete from ab_impressions where window_index < ${window}`.execute(this.db);
  }
}
