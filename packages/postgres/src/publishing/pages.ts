import { sql, type RawBuilder } from 'kysely';
import { edgeRule } from '@inntak/access';
import { isAbStatus } from '@inntak/ab-testing';
import { clipArticle, excerptOf, MAX_ARTICLE_CHARS, UNTITLED, type Article, type ArticleMedia, type ArticleSummary, type FrontPageEntry, type FrontPageVariant, type PageWindow } from '@inntak/publishing';
import { TAG_NODE_KIND as TAG_KIND, TAGGED_EDGE_TYPE as TAGGED } from '@inntak/graph';
import type { DatabaseHandle, Db, PreparedStatement } from '../platform/index.js';
import { FRONT_PAGE_VARIANT, PUBLISHED_IN } from './articles.js';

/**
 * The reads behind the published pages. Every one starts from the publication's published_in
 * edges, so a node that is not published in the publication can never appear, whatever its
 * visibility; and every one reads a bounded page (PageWindow) or one row.
 */

/** Enough content for an excerpt, without carrying whole documents into listings. */
// Markdown spends characters on markup (labels, link targets): read more than the excerpt shows.
const EXCERPT_SOURCE_CHARS = 2000;

interface SummaryRow {
  id: string;
  title: string | null;
  content: string | null;
  published_at: Date;
}

function toSummary(row: SummaryRow): ArticleSummary {
  return { id: row.id, title: row.title || UNTITLED, excerpt: excerptOf(row.content), publishedAt: row.published_at };
}

/** The publication's articles, newest published first (index edges_published_in_cover_idx). */
export async function publishedArticles(db: Db, publicationId: string, window: PageWindow): Promise<ArticleSummary[]> {
  const { rows } = await sql<SummaryRow>`
    select n.id, n.title, left(n.content, ${EXCERPT_SOURCE_CHARS}) as content, e.created_at as published_at
    from edges e join nodes n on n.id = e.source_id
    where e.target_id = ${publicationId} and e.edge_type = ${PUBLISHED_IN}
    order by e.created_at desc, e.id desc
    limit ${window.limit} offset ${window.offset}`.execute(db);
  return rows.map(toSummary);
}

/** The front page's articles with their variants in play (retired ones are never read). */
export async function frontPageEntries(db: Db, publicationId: string, window: PageWindow): Promise<FrontPageEntry[]> {
  const articles = await publishedArticles(db, publicationId, window);
  if (articles.length === 0) return [];
  const { rows } = await sql<{ id: string; target_id: string; metadata: Record<string, unknown> }>`
    select id, target_id, metadata from edges
    where source_id = ${publicationId} and edge_type = ${FRONT_PAGE_VARIANT}
      and target_id = any(${articles.map((a) => a.id)}::uuid[])
      and metadata ->> 'ab_status' is distinct from 'retired'
      -- A paused test (pause_ab_test) shows the article's own title and counts nothing.
      and not metadata ? 'paused'
    order by id`.execute(db);
  const byArticle = new Map<string, FrontPageVariant[]>();
  for (const row of rows) {
    const m = row.metadata;
    const variant: FrontPageVariant = {
      id: row.id,
      variantType: String(m.variant_type ?? ''),
      abStatus: isAbStatus(m.ab_status) ? m.ab_status : null,
      title: String(m.title ?? ''),
      teaser: typeof m.teaser === 'string' ? m.teaser : null,
    };
    const list = byArticle.get(row.target_id);
    if (list) list.push(variant);
    else byArticle.set(row.target_id, [variant]);
  }
  return articles.map((a) => ({ ...a, variants: byArticle.get(a.id) ?? [] }));
}

/** One published article with its tags; undefined when it is not published in the publication. */
export async function publishedArticle(db: Db, publicationId: string, articleId: string): Promise<Article | undefined> {
  // One character more than a page shows: enough to know the article was cut (clipArticle).
  const { rows } = await sql<SummaryRow>`
    select n.id, n.title, left(n.content, ${MAX_ARTICLE_CHARS + 1}) as content, e.created_at as published_at
    from edges e join nodes n on n.id = e.source_id
    where e.target_id = ${publicationId} and e.edge_type = ${PUBLISHED_IN} and e.source_id = ${articleId}`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  const { rows: tags } = await sql<{ tag: string }>`
    select distinct t.metadata ->> 'tag' as tag
    from edges te join nodes t on t.id = te.target_id
    where te.source_id = ${articleId} and te.edge_type = ${TAGGED} and t.node_kind = ${TAG_KIND} and t.metadata ->> 'tag' is not null
    order by 1 limit 50`.execute(db);
  const { rows: media } = await sql<{ id: string; title: string | null; mime: string }>`
    select m.id, m.title, m.metadata ->> 'mime' as mime
    from edges h join nodes m on m.id = h.target_id
    where h.source_id = ${articleId} and h.edge_type = ${HAS_MEDIA} and m.node_kind = 'media' and m.metadata ->> 'mime' is not null
      and ${mediaEdgeCounts()}
    order by m.id limit ${MAX_MEDIA}`.execute(db);
  return { ...toSummary(row), ...clipArticle(row.content ?? ''), tags: tags.map((t) => t.tag), media: media.flatMap(toArticleMedia) };
}

/** An article page shows at most this many media (a TTS reading, a few images). */
const MAX_MEDIA = 20;
const HAS_MEDIA = 'has_media';

/**
 * True when has_media edge `h` puts media node `m` on a public page: the source's own media (it
 * belongs to the source alone, so publishing the source published it), or the edge's maker holds
 * now what publishing the media takes (the write policy's `publishes`: admin on it and on every
 * node it belongs_to; a system administrator). Read at serve time, so an edge drawn by a member,
 * or by an admin since revoked, does not count (issue 35, finding 1): the owner, who cannot see
 * an edge from a node hidden from them, need not find it.
 */
function mediaEdgeCounts(): RawBuilder<boolean> {
  const level = edgeRule(HAS_MEDIA).publishes!;
  const holds = (object: RawBuilder<string>) => sql<boolean>`exists (select 1 from node_access acc
    where acc.object_id = ${object} and acc.subject_id = h.created_by and acc.access >= ${level}::access_level)`;
  return sql<boolean>`(
    (exists (select 1 from edges b where b.source_id = m.id and b.edge_type = 'belongs_to' and b.target_id = h.source_id)
      and not exists (select 1 from edges b where b.source_id = m.id and b.edge_type = 'belongs_to' and b.target_id <> h.source_id))
    or exists (select 1 from system_admins sa where sa.node_id = h.created_by)
    or (${holds(sql`m.id`)} and not exists (select 1 from edges b where b.source_id = m.id and b.edge_type = 'belongs_to'
      and not ${holds(sql`b.target_id`)})))`;
}

function toArticleMedia(row: { id: string; title: string | null; mime: string }): ArticleMedia[] {
  const kind = row.mime.startsWith('audio/') ? 'audio' : row.mime.startsWith('video/') ? 'video' : row.mime.startsWith('image/') ? 'image' : undefined;
  return kind ? [{ id: row.id, kind, mime: row.mime, ...(row.title ? { title: row.title } : {}) }] : [];
}

/**
 * A media node that an article published in the publication owns (has_media, an edge that counts:
 * mediaEdgeCounts): what the pages may serve to anyone (docs/publishing.md#media); undefined for
 * any other id.
 */
export async function publishedMedia(db: Db, publicationId: string, mediaId: string): Promise<{ id: string; mime: string } | undefined> {
  const { rows } = await sql<{ id: string; mime: string }>`
    select m.id, m.metadata ->> 'mime' as mime
    from nodes m
      join edges h on h.target_id = m.id and h.edge_type = ${HAS_MEDIA}
      join edges p on p.source_id = h.source_id and p.edge_type = ${PUBLISHED_IN} and p.target_id = ${publicationId}
    where m.id = ${mediaId} and m.node_kind = 'media' and m.metadata ->> 'mime' is not null
      and ${mediaEdgeCounts()}
    limit 1`.execute(db);
  return rows[0];
}

/** Published articles that have the (normalized) tag, newest first. */
export async function taggedArticles(db: Db, publicationId: string, tag: string, window: PageWindow): Promise<ArticleSummary[]> {
  const { rows } = await sql<SummaryRow>`
    select n.id, n.title, left(n.content, ${EXCERPT_SOURCE_CHARS}) as content, e.created_at as published_at
    from edges e join nodes n on n.id = e.source_id
    where e.target_id = ${publicationId} and e.edge_type = ${PUBLISHED_IN}
      and exists (
        select 1 from edges te join nodes t on t.id = te.target_id
        where te.source_id = e.source_id and te.edge_type = ${TAGGED} and t.node_kind = ${TAG_KIND} and t.metadata ->> 'tag' = ${tag})
    order by e.created_at desc, e.id desc
    limit ${window.limit} offset ${window.offset}`.execute(db);
  return rows.map(toSummary);
}

/**
 * Ranked full-text search among the publication's articles (the node_search documents of
 * migration 005: title above content), read with websearch_to_tsquery, which accepts any text.
 *
 * As in GET /query/nodes (packages/postgres/src/graph/node-search.ts), ranking every match
 * costs time per match, so matches are ranked in windows of the PUB_SEARCH_WINDOW newest
 * published: the first window's best first, then the next window's, and so on. Page n is rows
 * (n-1)·size… of that order, so a page reads one window (two where it straddles a boundary).
 *
 * How the matches are found depends on how common the words are (issue 29; the planner's
 * statistics, inntak_search_estimate): words in at most PUB_BITMAP_MATCHES nodes are read from
 * their GIN bitmap, every match in the publication, at a cost of their matches; commoner words
 * walk the publication's published articles newest first (edges_published_in_cover_idx), and
 * that walk covers the PUB_SEARCH_SPAN newest articles at most, so a common word's search costs
 * the same in a publication of any size and finds its matches among the newest articles.
 */
export async function searchArticles(db: Db, publicationId: string, words: string, window: PageWindow, options: PubSearchOptions = {}): Promise<ArticleSummary[]> {
  const size = options.window ?? PUB_SEARCH_WINDOW;
  const first = Math.floor(window.offset / size);
  const last = Math.floor((window.offset + window.limit - 1) / size);
  // The planner estimates words ANDed (or a phrase) as if independent; words that go together
  // match far more often. A bitmap costs the true matches, so without OR or NOT the choice
  // also takes the rarest single word's count, an upper bound (the first 8 words: still one;
  // a single word's own estimate is already that, so it is not asked twice).
  const { rows: estimate } = await sql<{ documents: number }>`
    select greatest(e.documents, coalesce(u.least, 0)) as documents
      from websearch_to_tsquery('simple', ${words}) q
      cross join inntak_search_estimate(q) e
      left join lateral (
        select min(x.documents) as least
          from (select w from unnest(tsvector_to_array(to_tsvector('simple', ${words}))) w limit 8) l
          cross join inntak_search_estimate(to_tsquery('simple', quote_literal(l.w))) x
         where numnode(q) > 1 and q::text !~ '[|!]') u on true`.execute(db);
  const walk = options.strategy ? options.strategy === 'walk' : estimate[0]!.documents > (options.bitmapMatches ?? PUB_BITMAP_MATCHES);
  const since = walk ? await spanStart(db, publicationId, options.span ?? PUB_SEARCH_SPAN) : undefined;
  // The windows the page reaches (two where it straddles a boundary) are read in one walk.
  const rows = await searchWindows(db, publicationId, words, since, { first, count: last - first + 1, size }, window);
  return rows.map(toSummary);
}

/** For tests: smaller windows, spans and bitmap bound, and either way of finding the matches forced. */
export interface PubSearchOptions {
  window?: number;
  span?: number;
  bitmapMatches?: number;
  strategy?: 'walk' | 'bitmap';
}

/** Matches ranked together on the public search page. */
export const PUB_SEARCH_WINDOW = 500;
/** Words in at most this many nodes are read from their bitmap (about 3.5 µs a match). */
export const PUB_BITMAP_MATCHES = 5_000;
/** Published articles a search of commoner words walks at most (about 3.5 µs an article). */
export const PUB_SEARCH_SPAN = 5_000;

/**
 * `null` is walked whole (the publication has at most PUB_SEARCH_SPAN articles); else
 * the publishing time of its PUB_SEARCH_SPAN-th newest article, where the walk stops.
 */
async function spanStart(db: Db, publicationId: string, span: number): Promise<Date | null> {
  const { rows } = await sql<{ at: Date }>`
    select e.created_at as at from edges e where e.target_id = ${publicationId} and e.edge_type = ${PUBLISHED_IN}
    order by e.created_at desc, e.id desc offset ${span - 1} limit 1`.execute(db);
  return rows[0]?.at ?? null;
}

/**
 * The page's rows of windows first… of the matches, each window ranked. `since` undefined: from
 * the words' bitmap. Else walked newest first (the match written `is true`, which no index
 * answers, so the planner walks instead of reading a common word's whole posting list), down to
 * `since` when it is a time.
 */
async function searchWindows(
  db: Db,
  publicationId: string,
  words: string,
  since: Date | null | undefined,
  { first, count, size }: { first: number; count: number; size: number },
  page: PageWindow,
): Promise<SummaryRow[]> {
  const terms = sql`websearch_to_tsquery('simple', ${words})`;
  const matches =
    since === undefined
      ? sql`(select s.node_id, s.document from node_search s where s.document @@ ${terms} offset 0) s
            cross join lateral (select e.source_id, e.created_at, e.id from edges e
              where e.source_id = s.node_id and e.target_id = ${publicationId} and e.edge_type = ${PUBLISHED_IN} limit 1) e`
      : sql`edges e join node_search s on s.node_id = e.source_id
            where e.target_id = ${publicationId} and e.edge_type = ${PUBLISHED_IN} and (s.document @@ ${terms}) is true
            ${since ? sql`and e.created_at >= ${since}` : sql``}`;
  const { rows } = await sql<SummaryRow>`
    select n.id, n.title, left(n.content, ${EXCERPT_SOURCE_CHARS}) as content, w.created_at as published_at
    from (select w.*, (row_number() over (order by w.created_at desc, w.id desc) - 1) / ${size} as k
            from (select e.source_id, e.created_at, e.id from ${matches}
                   order by e.created_at desc, e.id desc
                   offset ${first * size} limit ${count * size}) w) w
      join nodes n on n.id = w.source_id
      -- Ranked here, so only the windows' rows are: the rows an offset skips are computed too.
      join node_search r on r.node_id = w.source_id
    order by w.k, ts_rank(r.document, ${terms}) desc, w.created_at desc, w.id desc
    offset ${page.offset - first * size} limit ${page.limit}`.execute(db);
  return rows;
}

/**
 * Which publications a burst of change notices touches, for the page cache: changed
 * publications, published articles, publishing and variant edges, tag edges of published
 * articles. One query per burst.
 *
 * A named prepared statement: planning this union of seven selects took about 1 ms of the
 * database's CPU each time, twenty times its execution, and it runs for every burst of changes
 * (measured under bench:intake: 0.5 ms of database CPU per webhook, issue 40).
 */
const PUBLICATIONS_TOUCHED: PreparedStatement = {
  name: 'inntak_publications_touched',
  // Whether a has_media edge counts on a page depends on its target's belongs_to edges and on its
  // maker's grants (mediaEdgeCounts), so a change of either touches the articles that show the
  // media, as an edit of the media node does (found attacking the merged result of issue 35).
  text: `select n.id from nodes n where n.id = any($1::uuid[]) and n.node_kind = 'collection' and n.metadata ? 'publication'
    union
    select e.target_id from edges e where e.source_id = any($1::uuid[]) and e.edge_type = '${PUBLISHED_IN}'
    union
    select case when e.edge_type = '${PUBLISHED_IN}' then e.target_id else e.source_id end
    from edges e where e.id = any($2::uuid[]) and e.edge_type in ('${PUBLISHED_IN}', '${FRONT_PAGE_VARIANT}')
    union
    select p.target_id from edges e join edges p on p.source_id = e.source_id and p.edge_type = '${PUBLISHED_IN}'
    where e.id = any($2::uuid[]) and e.edge_type in ('${TAGGED}', '${HAS_MEDIA}')
    union
    select p.target_id from edges h join edges p on p.source_id = h.source_id and p.edge_type = '${PUBLISHED_IN}'
    where h.edge_type = '${HAS_MEDIA}' and (h.target_id = any($1::uuid[]) or h.created_by = any($3::uuid[]))
    union
    select p.target_id from edges e
      join edges h on h.target_id = e.source_id and h.edge_type = '${HAS_MEDIA}'
      join edges p on p.source_id = h.source_id and p.edge_type = '${PUBLISHED_IN}'
    where e.id = any($2::uuid[]) and e.edge_type = 'belongs_to'
    union
    select p.target_id from edges e
      join edges h on h.created_by = e.source_id and h.edge_type = '${HAS_MEDIA}'
      join edges p on p.source_id = h.source_id and p.edge_type = '${PUBLISHED_IN}'
    where e.id = any($2::uuid[]) and e.edge_type in ('owner', 'member_of')`,
};

export async function publicationsTouched(
  database: Pick<DatabaseHandle, 'prepared'>,
  nodeIds: readonly string[],
  edgeIds: readonly string[],
  makers: readonly string[] = [],
): Promise<string[]> {
  if (nodeIds.length === 0 && edgeIds.length === 0 && makers.length === 0) return [];
  const rows = await database.prepared<{ id: string }>(PUBLICATIONS_TOUCHED, [nodeIds, edgeIds, makers]);
  return rows.map((r) => r.id);
}
