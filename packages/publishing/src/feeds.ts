import { Feed } from 'feed';
import { escapeHtml } from './html.js';
import type { ArticleSummary } from './models.js';
import type { PageContext } from './render.js';

/**
 * What machines read: an RSS 2.0 feed of the newest articles and a sitemap of the pages. Both
 * need absolute URLs, so they take the page context's origin (BASE_URL, or the custom domain).
 */
export function renderFeed(ctx: PageContext & { origin: string }, articles: readonly ArticleSummary[]): string {
  const { publication } = ctx;
  const home = `${ctx.origin}${ctx.base}/`;
  const feed = new Feed({
    id: home,
    title: publication.title,
    description: publication.about.trim() ? publication.about.replace(/\s+/g, ' ').trim().slice(0, 500) : publication.title,
    link: home,
    language: publication.language,
    // The feed's date is the newest article's: the same data gives the same bytes (and ETag).
    updated: articles[0]?.publishedAt ?? new Date(0),
    generator: 'Inntak',
    feedLinks: { rss: `${ctx.origin}${ctx.base}/feed.xml` },
    copyright: publication.title,
  });
  for (const a of articles) {
    const link = `${ctx.origin}${ctx.base}/artikkel/${a.id}`;
    feed.addItem({ title: a.title, id: link, link, date: a.publishedAt, description: a.excerpt });
  }
  return feed.rss2();
}

/** The sitemap protocol's urlset: the front page, archive, about page and the articles given. */
export function renderSitemap(ctx: PageContext & { origin: string }, articles: readonly ArticleSummary[]): string {
  const url = (path: string, lastmod?: Date) =>
    `<url><loc>${escapeHtml(`${ctx.origin}${ctx.base}${path}`)}</loc>${lastmod ? `<lastmod>${lastmod.toISOString()}</lastmod>` : ''}</url>`;
  const urls = [url('/'), url('/arkiv'), url('/om'), ...articles.map((a) => url(`/artikkel/${a.id}`, a.publishedAt))];
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`;
}
