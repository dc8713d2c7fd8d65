import { createHash } from 'node:crypto';
import { html, Html, type HtmlValue } from './html.js';
import { formatDay, groupByMonth } from './dates.js';
import { CHROME, type Chrome } from './chrome.js';
import { plainText, renderMarkdown } from './markdown.js';
import type { Article, ArticleSummary, FrontPageEntry, FrontPageVariant, Listing, Publication, RenderedEntry } from './models.js';

/**
 * Server-rendered pages: valid HTML5, no scripts, readable on a phone (viewport, one column,
 * system fonts). Every function takes the base path (`/pub/{slug}` or '' on a custom domain) so
 * the same pages serve both.
 */
export interface PageContext {
  publication: Publication;
  base: string;
  /**
   * Scheme and host the page is served from (`https://avisa.no`, or BASE_URL's for /pub/…), for
   * the canonical link, Open Graph and the feed; absent: those are left out.
   */
  origin?: string;
}

/** What a page tells machines about itself: search engines, link previews, feed readers. */
interface PageMeta {
  description?: string;
  /** The page's path under the publication (`/artikkel/…`), for the canonical link. */
  path?: string;
  type?: 'website' | 'article';
}

function words(ctx: PageContext): Chrome {
  return CHROME[ctx.publication.language];
}

/** A description is one line of at most 200 characters. */
function describe(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= 200 ? flat : `${flat.slice(0, 199).trimEnd()}…`;
}

// overflow-wrap:anywhere: a 200-character word or URL wraps instead of widening a 320 px page;
// code blocks and tables scroll inside their own box.
const STYLE = `body{font:1.05rem/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1a1a1a;background:#fdfdfc;overflow-wrap:anywhere}
header,main,footer{max-width:42rem;margin:0 auto;padding:0 1rem}
header{border-bottom:1px solid #ddd;padding-top:1rem;padding-bottom:.5rem}
header .site{font-size:1.6rem;font-weight:700;color:inherit;text-decoration:none}
nav{display:flex;flex-wrap:wrap;gap:.75rem;align-items:center;margin:.5rem 0}
nav form{display:flex;gap:.25rem}
input[type=search]{font:inherit;padding:.2rem .4rem;max-width:12rem}
button{font:inherit}
article{margin:1.5rem 0}
article h2{font-size:1.25rem;margin:0 0 .25rem}
a{color:#0b5cad}
time{color:#555;font-size:.9rem}
.pages{display:flex;justify-content:space-between;margin:2rem 0}
pre{overflow-x:auto;white-space:pre-wrap;background:#f3f3f1;padding:.5rem}
code{font-size:.92em;background:#f3f3f1;padding:0 .15em}
pre code{padding:0}
blockquote{margin:1rem 0;padding-left:1rem;border-left:3px solid #ccc;color:#333}
table{display:block;overflow-x:auto;border-collapse:collapse}
td,th{border:1px solid #ddd;padding:.2rem .4rem}
img,video{max-width:100%;height:auto}
audio{width:100%}
.media{margin:1rem 0}
footer{color:#666;font-size:.85rem;border-top:1px solid #ddd;margin-top:2rem;padding-bottom:2rem}`;

/**
 * The published pages' Content-Security-Policy (issue 35, finding 8). They share an origin with
 * the console and the media files, and run no script: none may run, whatever a text or a file
 * manages to put into a page. Their one inline style is allowed by its hash, media and images
 * load from this origin only (markdown.ts allows no other), forms (search) go only here.
 */
export const PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "img-src 'self'",
  "media-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

function home(ctx: PageContext): string {
  return ctx.base === '' ? '/' : ctx.base;
}

function layout(ctx: PageContext, title: string, body: Html, meta: PageMeta = {}): Html {
  const { publication } = ctx;
  const w = words(ctx);
  const fullTitle = title === publication.title ? title : `${title} – ${publication.title}`;
  const description = describe(meta.description || plainText(publication.about) || publication.title);
  const canonical = ctx.origin && meta.path !== undefined ? `${ctx.origin}${ctx.base}${meta.path}` : undefined;
  return html`<!doctype html>
<html lang="${publication.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${fullTitle}</title>
<meta name="description" content="${description}">
<meta property="og:title" content="${title}">
<meta property="og:description" content="${description}">
<meta property="og:type" content="${meta.type ?? 'website'}">
<meta property="og:site_name" content="${publication.title}">
<meta property="og:locale" content="${publication.language === 'nb' ? 'nb_NO' : 'en_GB'}">
${canonical ? html`<link rel="canonical" href="${canonical}">
<meta property="og:url" content="${canonical}">
` : ''}<link rel="alternate" type="application/rss+xml" title="${publication.title}" href="${ctx.base}/feed.xml">
<style>${new Html(STYLE)}</style>
</head>
<body>
<header>
<a class="site" href="${home(ctx)}">${publication.title}</a>
<nav>
<a href="${ctx.base}/arkiv">${w.archive}</a>
<a href="${ctx.base}/om">${w.about}</a>
<a href="${ctx.base}/feed.xml">RSS</a>
<form action="${ctx.base}/sok" method="get" role="search"><input type="search" name="q" aria-label="${w.search}" placeholder="${w.search}"><button type="submit">${w.search}</button></form>
</nav>
</header>
<main>
${body}
</main>
<footer>${publication.title}</footer>
</body>
</html>
`;
}

function summary(ctx: PageContext, article: ArticleSummary, options: { href?: string; title?: string; teaser?: string | null } = {}): Html {
  const href = options.href ?? `${ctx.base}/artikkel/${article.id}`;
  const teaser = options.teaser ?? article.excerpt;
  return html`<article>
<h2><a href="${href}">${options.title ?? article.title}</a></h2>
<time datetime="${article.publishedAt.toISOString()}">${formatDay(article.publishedAt, ctx.publication.language)}</time>
${teaser ? html`<p>${teaser}</p>` : ''}
</article>
`;
}

/** Newer/older links; `extra` keeps other query parameters (the search words). */
function pager(ctx: PageContext, path: string, listing: Listing<unknown>, extra: Record<string, string> = {}): Html {
  const w = words(ctx);
  const link = (page: number) => {
    const query = new URLSearchParams(extra);
    if (page > 1) query.set('side', String(page));
    const text = query.toString();
    return text ? `${path}?${text}` : path;
  };
  if (listing.page === 1 && !listing.hasNext) return html``;
  return html`<nav class="pages" aria-label="${w.pages}">
${listing.page > 1 ? html`<a rel="prev" href="${link(listing.page - 1)}">${w.newer}</a>` : html`<span></span>`}
<span>${w.page(listing.page)}</span>
${listing.hasNext ? html`<a rel="next" href="${link(listing.page + 1)}">${w.older}</a>` : html`<span></span>`}
</nav>
`;
}

function empty(text: string): Html {
  return html`<p>${text}</p>`;
}

/**
 * The front page, prepared once per page model: every article's block is rendered for each of
 * its variants (and for none), so a render only picks a block per article and joins strings.
 * The variant is still chosen per render (`choose`), linked through /t for click tracking.
 */
export interface PreparedFrontPage {
  /**
   * `choose` picks the variant of an entry; `impression` (issue 24) gives the signed impression
   * id its /t link carries (`&i=…`, base64url), or nothing: a click without one counts nothing.
   */
  render(choose: (entry: FrontPageEntry) => FrontPageVariant | undefined, impression?: (entry: FrontPageEntry, variant: FrontPageVariant) => string | undefined): string;
}

/** Where a variant's /t link takes its impression id: SOH cannot occur in text from PostgreSQL either. */
const IMPRESSION = '\u0001';

export function prepareFrontPage(ctx: PageContext, listing: Listing<FrontPageEntry>): PreparedFrontPage {
  const blocks = listing.items.map((entry) => {
    const byVariant = new Map<string, string[]>([['', [summary(ctx, entry).value]]]);
    for (const v of entry.variants) {
      const block = summary(ctx, entry, { href: `${ctx.base}/t/${entry.id}?v=${v.id}${IMPRESSION}`, title: v.title, teaser: v.teaser ?? entry.excerpt }).value;
      byVariant.set(v.id, block.split(IMPRESSION));
    }
    return byVariant;
  });
  // Markers where the blocks go: NUL cannot occur in text from PostgreSQL, so it cannot collide.
  const markers = listing.items.map((_, i) => new Html(`\u0000${i}\u0000`));
  const body = html`<h1>${ctx.publication.title}</h1>
${listing.items.length > 0 ? markers : empty(words(ctx).noArticles)}
${pager(ctx, home(ctx), listing)}`;
  const meta: PageMeta = { path: listing.page > 1 ? `/?side=${listing.page}` : '' };
  // eslint-disable-next-line no-control-regex
  const segments = layout(ctx, ctx.publication.title, body, meta).value.split(/\u0000[0-9]+\u0000/);
  return {
    render(choose, impression) {
      let out = segments[0]!;
      for (let i = 0; i < blocks.length; i++) {
        const entry = listing.items[i]!;
        const chosen = choose(entry);
        const parts = (chosen && blocks[i]!.get(chosen.id)) || blocks[i]!.get('')!;
        const id = chosen && parts.length > 1 ? impression?.(entry, chosen) : undefined;
        out += parts.join(id ? `&amp;i=${id}` : '') + segments[i + 1]!;
      }
      return out;
    },
  };
}

/** The front page with the variants already chosen (one render). */
export function renderFrontPage(ctx: PageContext, listing: Listing<RenderedEntry>): string {
  const entries = listing.items.map(({ article, variant }) => ({ ...article, variants: variant ? [variant] : [] }));
  return prepareFrontPage(ctx, { ...listing, items: entries }).render((entry) => entry.variants[0]);
}

export function renderArticle(ctx: PageContext, article: Article): string {
  const w = words(ctx);
  const tags: HtmlValue = article.tags.length
    ? html`<p>${w.topics}: ${article.tags.map((t, i) => html`${i > 0 ? ', ' : ''}<a href="${ctx.base}/kategori/${encodeURIComponent(t)}">${t}</a>`)}</p>`
    : '';
  const body = html`<article>
<h1>${article.title}</h1>
<time datetime="${article.publishedAt.toISOString()}">${formatDay(article.publishedAt, ctx.publication.language)}</time>
${mediaBlock(ctx, article)}<div class="content">
${new Html(renderMarkdown(article.content))}</div>
${article.truncated ? html`<p class="note"><em>${w.truncated}</em></p>\n` : ''}
${tags}
</article>`;
  return layout(ctx, article.title, body, { description: article.excerpt, path: `/artikkel/${article.id}`, type: 'article' }).value;
}

/** An article's media (its TTS reading, images, video), through URLs a browser can fetch (mediaPath). */
function mediaBlock(ctx: PageContext, article: Article): Html | '' {
  if (!article.media || article.media.length === 0) return '';
  const w = words(ctx);
  return html`${article.media.map((m) => {
    const src = mediaPath(ctx, m.id);
    if (m.kind === 'audio') return html`<figure class="media"><figcaption>${m.title ?? w.listen}</figcaption><audio controls preload="metadata" src="${src}"></audio></figure>\n`;
    if (m.kind === 'video') return html`<figure class="media"><video controls preload="metadata" src="${src}"></video>${m.title ? html`<figcaption>${m.title}</figcaption>` : ''}</figure>\n`;
    return html`<figure class="media"><img src="${src}" alt="${m.title ?? article.title}" loading="lazy"></figure>\n`;
  })}`;
}

/** A published article's media file, public under the publication (docs/publishing.md#media). */
export function mediaPath(ctx: PageContext, mediaId: string): string {
  return `${ctx.base}/medier/${mediaId}`;
}

export function renderCategory(ctx: PageContext, tag: string, listing: Listing<ArticleSummary>): string {
  const path = `${ctx.base}/kategori/${encodeURIComponent(tag)}`;
  const w = words(ctx);
  const body = html`<h1>${w.topic(tag)}</h1>
${listing.items.length > 0 ? listing.items.map((a) => summary(ctx, a)) : empty(w.noTagged)}
${pager(ctx, path, listing)}`;
  return layout(ctx, w.topic(tag), body, { path: `/kategori/${encodeURIComponent(tag)}${listing.page > 1 ? `?side=${listing.page}` : ''}` }).value;
}

export function renderArchive(ctx: PageContext, listing: Listing<ArticleSummary>): string {
  const w = words(ctx);
  const language = ctx.publication.language;
  const months = groupByMonth(listing.items, (a) => a.publishedAt, language);
  const body = html`<h1>${w.archive}</h1>
${
  months.length > 0
    ? months.map(
        (m) => html`<section>
<h2 id="m${m.key}">${m.label}</h2>
<ul>
${m.items.map((a) => html`<li><a href="${ctx.base}/artikkel/${a.id}">${a.title}</a> <time datetime="${a.publishedAt.toISOString()}">${formatDay(a.publishedAt, language)}</time></li>\n`)}</ul>
</section>
`,
      )
    : empty(w.archiveEmpty)
}
${pager(ctx, `${ctx.base}/arkiv`, listing)}`;
  return layout(ctx, w.archive, body, { path: `/arkiv${listing.page > 1 ? `?side=${listing.page}` : ''}` }).value;
}

export function renderSearch(ctx: PageContext, query: string, listing: Listing<ArticleSummary> | undefined): string {
  const w = words(ctx);
  const results: HtmlValue = !listing
    ? ''
    : listing.items.length > 0
      ? [...listing.items.map((a) => summary(ctx, a)), pager(ctx, `${ctx.base}/sok`, listing, { q: query })]
      : empty(w.noHits);
  const body = html`<h1>${w.search}</h1>
<form action="${ctx.base}/sok" method="get" role="search"><input type="search" name="q" value="${query}" aria-label="${w.searchWords}"><button type="submit">${w.search}</button></form>
${results}`;
  return layout(ctx, query ? w.searchFor(query) : w.search, body).value;
}

export function renderAbout(ctx: PageContext): string {
  const w = words(ctx);
  const about = ctx.publication.about.trim();
  const body = html`<h1>${w.aboutTitle(ctx.publication.title)}</h1>
${about ? html`<div class="content">\n${new Html(renderMarkdown(about))}</div>` : empty(w.noAbout)}`;
  return layout(ctx, w.about, body, { path: '/om' }).value;
}

/** A search refused by the per-client or global search cap (429): the reader may try again shortly. */
export function renderTooManySearches(ctx: PageContext): string {
  const w = words(ctx);
  const body = html`<h1>${w.tooManyTitle}</h1>
<p>${w.tooManyText}</p>
<p><a href="${home(ctx)}">${w.home}</a></p>`;
  return layout(ctx, w.tooManyTitle, body).value;
}

/** A 404 page; without a publication (unknown slug) it stands alone. */
export function renderNotFound(ctx: PageContext | undefined): string {
  const w = ctx ? words(ctx) : CHROME.nb;
  const body = html`<h1>${w.notFoundTitle}</h1>
<p>${w.notFoundText}</p>
${ctx ? html`<p><a href="${home(ctx)}">${w.home}</a></p>` : ''}`;
  if (ctx) return layout(ctx, w.notFoundTitle, body).value;
  return html`<!doctype html>
<html lang="nb">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${w.notFoundTitle}</title>
<meta name="description" content="${w.notFoundText}">
<style>${new Html(STYLE)}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`.value;
}
