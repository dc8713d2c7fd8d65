import { createHash } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import { z } from 'zod';
import { AbClientGate, countsAsView, notAViewReason, selectVariant, stickyRandom, type AbRecorder } from '@inntak/ab-testing';
import { isUuid, storable, type Logger, type SharedKey } from '@inntak/core';
import { normalizeTag } from '@inntak/graph';
import {
  hostName,
  normalizeDomain,
  PAGE_CSP,
  pageWindow,
  paginate,
  parsePage,
  renderAbout,
  renderArchive,
  renderArticle,
  renderCategory,
  prepareFrontPage,
  renderNotFound,
  renderSearch,
  renderTooManySearches,
  renderFeed,
  renderSitemap,
  type FrontPageEntry,
  type PageContext,
  type Publication,
  type PublishedPages,
} from '@inntak/publishing';
import { ROUTING, type PageCache } from './page-cache.js';
import { ClientKeys, SearchLimiter, type PublicClient } from './public-clients.js';
import { MEDIA_FILE_ANSWER, sendMediaFile, type MediaFileDeps } from '../media-file.js';
import { VisitorCookies } from './ab-visitors.js';
import { nameRoute } from '../request-logging.js';
import type { RouteRegistry, RouteResponse } from '../route-registry.js';

export interface PublishingDeps {
  /** The pages' reads (the composition root gives the PostgreSQL ones). */
  pages: PublishedPages;
  logger: Logger;
  recorder: AbRecorder;
  /** Page models cached until the change stream invalidates them; absent: every page reads the database. */
  pageCache?: PageCache;
  /** The service's own host (from BASE_URL): never a publication's custom domain. */
  ownHost?: string;
  /** Published articles' media files (/medier/{id}); absent: those paths are 404. */
  mediaFiles?: MediaFileDeps;
  /** BASE_URL: the origin of /pub/… pages' canonical links and feeds; its scheme is the custom domains' too. */
  baseUrl?: string;
  /** Which impressions and clicks count (one per client per article per window); default AbClientGate's defaults. */
  abGate?: AbClientGate;
  /** The /sok cap per address and in all; default SearchLimiter's defaults. */
  searches?: SearchLimiter;
  /** Cookie-less client keys; default: a key made now. */
  clients?: ClientKeys;
  /** The key signing visitor cookies (server_secrets.ab_visitor); default: a key made now. */
  visitorKey?: SharedKey;
}

/** The pages' dependencies with every per-process guard in place (createApp calls this once). */
export function publishingDeps(deps: PublishingDeps): Required<Omit<PublishingDeps, 'pageCache' | 'ownHost' | 'baseUrl' | 'mediaFiles' | 'visitorKey'>> & PublishingDeps & { visitors: VisitorCookies } {
  return {
    ...deps,
    abGate: deps.abGate ?? new AbClientGate({ logger: deps.logger }),
    searches: deps.searches ?? new SearchLimiter(),
    clients: deps.clients ?? new ClientKeys(),
    visitors: new VisitorCookies(deps.visitorKey),
  };
}

type PageDeps = ReturnType<typeof publishingDeps>;

const TAGS = ['publishing'];
/** Search words beyond this are ignored: a page of results needs no essay. */
const MAX_SEARCH_CHARS = 200;

const HTML_PAGE = { status: 200, schema: z.string(), contentType: 'text/html', description: 'An HTML page' } satisfies RouteResponse;
const PAGE_ROUTES: Array<[path: string, summary: string, answer: RouteResponse]> = [
  ['/pub/{slug}', 'Front page: newest published articles, each with its selected variant', HTML_PAGE],
  ['/pub/{slug}/artikkel/{article_id}', 'A published article', HTML_PAGE],
  ['/pub/{slug}/t/{article_id}', 'Click tracking for a front-page variant (?v={edge_id}), counted only for the variant this reader was shown; 302 to the article', { status: 302, schema: z.never(), description: 'To the article' }],
  ['/pub/{slug}/kategori/{tag}', 'Published articles with a tag, paginated', HTML_PAGE],
  ['/pub/{slug}/arkiv', 'Archive, newest first, grouped by month, paginated', HTML_PAGE],
  ['/pub/{slug}/sok', 'Ranked full-text search among published articles (?q=), paginated; capped per address and in all (429)', HTML_PAGE],
  ['/pub/{slug}/om', 'About the publication', HTML_PAGE],
  ['/pub/{slug}/medier/{media_id}', 'A media file (audio, image, video) of an article published here, public; Range (206), ETag (304)', MEDIA_FILE_ANSWER],
  ['/pub/{slug}/feed.xml', 'RSS 2.0 feed of the newest published articles', { status: 200, schema: z.string(), contentType: 'application/rss+xml', description: 'An RSS 2.0 document' }],
  ['/pub/{slug}/sitemap.xml', 'Sitemap of the front page, archive, about page and newest published articles', { status: 200, schema: z.string(), contentType: 'application/xml', description: 'A sitemap (sitemaps.org)' }],
];

/**
 * The paths a custom domain serves (issue 22, finding 5): the publication's pages and nothing
 * else. Every other path (/api, /intentions, /me, /health, /metrics, /media, /ws, /docs,
 * /openapi.json, /admin, /pub, …) goes to the service as if the Host were its own, so a
 * publication cannot take over the webhook intake or the health checks of a host name.
 */
const DOMAIN_PAGE_PATH = /^\/(?:(?:artikkel|t|kategori|medier)\/[^/]+\/?|(?:arkiv|sok|om)\/?|feed\.xml|sitemap\.xml)?$/;

/** /pub/… on a custom domain: other publications' pages are not served under this one's name. */
const PUB_PATH = /^\/pub(?:\/|$)/;

/**
 * The published pages at the root of a publication's custom domains (the Host header): only
 * GET and HEAD of the page paths above (and an HTML 404 for /pub/…); everything else passes on.
 */
export function installPublishedDomains(app: Express, deps: PageDeps): void {
  app.use((req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const otherPublications = PUB_PATH.test(req.path);
    if (!otherPublications && !DOMAIN_PAGE_PATH.test(req.path)) return next();
    const host = hostName(req.headers.host);
    const domain = host && host !== deps.ownHost ? normalizeDomain(host) : undefined;
    if (!domain) return next();
    const pages = new Pages(deps);
    pages
      .byDomain(domain)
      .then((publication) => {
        if (!publication) return next();
        const ctx = { publication, base: '', origin: deps.baseUrl ? `${new URL(deps.baseUrl).protocol}//${domain}` : undefined };
        if (otherPublications) {
          nameRoute(res, 'domain:/pub/*');
          return pages.notFound(res, ctx);
        }
        return pages.serve(req, res, ctx, req.path);
      })
      .catch(next);
  });
}

export function installPublishedPages(app: Express, registry: RouteRegistry, deps: PageDeps): void {
  for (const [path, summary, answer] of PAGE_ROUTES) {
    registry.describe({
      method: 'get',
      path,
      summary,
      description: `${answer.status === 200 ? 'With an ETag (304 on If-None-Match). ' : ''}An unknown page is an HTML 404.`,
      tags: TAGS,
      auth: 'public',
      response: answer,
      // A media file's unsatisfiable range is sendMediaFile's JSON 416.
      errors: answer === MEDIA_FILE_ANSWER ? [416] : [],
      // /sok is capped per address and in all (429 with Retry-After, an HTML page).
      errorPages: path.endsWith('/sok') ? [404, 429] : [404],
    });
  }
  app.use('/pub', (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const match = /^\/([^/]+)(\/.*)?$/.exec(req.path);
    if (!match) return next();
    const pages = new Pages(deps);
    const slug = match[1]!;
    pages
      .bySlug(slug)
      .then((publication) => {
        if (!publication) {
          nameRoute(res, '/pub/:slug/*');
          return pages.notFound(res, undefined);
        }
        const origin = deps.baseUrl ? new URL(deps.baseUrl).origin : undefined;
        return pages.serve(req, res, { publication, base: `/pub/${publication.slug}`, origin }, match[2] ?? '/');
      })
      .catch(next);
  });
}

/** The feed's newest articles; the sitemap's (a bounded read each, cached until a change). */
const FEED_ITEMS = 30;
const SITEMAP_ITEMS = 1000;


/** One request's view of the pages: cached reads, rendering, cache headers. */
class Pages {
  private who: Promise<PublicClient> | undefined;

  constructor(private readonly deps: PageDeps) {}

  private cached<T>(scope: string, key: string, load: () => Promise<T>, weigh?: (value: T) => number): Promise<T> {
    return this.deps.pageCache ? this.deps.pageCache.get(scope, key, load, weigh) : load();
  }

  /** The reader, as keyed hashes (public-clients.ts); req.ip honours TRUST_PROXY. */
  private client(req: Request): Promise<PublicClient> {
    this.who ??= this.deps.clients.of(req.ip ?? req.socket.remoteAddress, req.get('user-agent'));
    return this.who;
  }

  bySlug(slug: string): Promise<Publication | undefined> {
    if (slug.length > 63) return Promise.resolve(undefined);
    return this.cached(ROUTING, `slug:${slug}`, async () => (await this.deps.pages.publicationBySlug(slug)) ?? null).then((p) => p ?? undefined);
  }

  byDomain(domain: string): Promise<Publication | undefined> {
    return this.cached(ROUTING, `host:${domain}`, async () => (await this.deps.pages.publicationByDomain(domain)) ?? null).then((p) => p ?? undefined);
  }

  async serve(req: Request, res: Response, ctx: PageContext, path: string): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') return this.notFound(res, ctx);
    const { pages } = this.deps;
    const pub = ctx.publication;
    const parts = path.split('/').filter((p) => p !== '');
    const page = parsePage(req.query.side);
    const [section, param] = parts;
    nameRoute(res, pageRoute(ctx, section));
    pageSecurity(res);

    if (parts.length === 0) {
      if (page === undefined) return this.notFound(res, ctx);
      // Prepared once per model and base path: a render only picks a variant per article.
      const front = await this.cached(pub.id, `front:${pub.id}:${ctx.base}:${page}`, async () => {
        const listing = paginate(await pages.frontPageEntries(pub.id, pageWindow(page)), page);
        return { etag: etagOf(listing ?? null), prepared: listing && prepareFrontPage(ctx, listing) };
      });
      if (!front.prepared) return this.notFound(res, ctx);
      // The page carries this visitor's variants and signed impression ids: no shared cache.
      if (this.fresh(req, res, front.etag, 'private, no-cache')) return;
      const visitor = await this.deps.visitors.visitorOf(req, res, ctx.base);
      // Only a reader's view counts (not HEAD, prefetch, crawlers), once per client and article
      // per window (AbClientGate): reloading the page does not add up. Each variant's /t link
      // carries the signed impression id a click needs.
      const choose = (entry: FrontPageEntry) => selectVariant(entry.variants, stickyRandom(visitor, entry.id));
      let tokens = new Map<string, string>();
      const notAView = req.method === 'GET' ? notAViewReason((name) => req.get(name)) : undefined;
      if (notAView) {
        // A crawler's or prefetch's render is counted as uncounted, with why, in the one render it gets.
        return this.send(res, front.prepared.render(choose, (entry, variant) => void this.deps.recorder.uncounted(variant.id, notAView)));
      }
      if (notAView === null) {
        // A first render only learns which variants are shown; the gate's answer (one round trip
        // for the page, shared by every API process) gives the ids a second render links.
        const shown = new Map<string, string>();
        front.prepared.render(choose, (entry, variant) => void shown.set(entry.id, variant.id));
        if (shown.size > 0) {
          const grant = await this.deps.abGate.impressions(await this.client(req), pub.id, shown);
          for (const variant of grant.counted) this.deps.recorder.impression(variant);
          for (const { variant, reason } of grant.uncounted) this.deps.recorder.uncounted(variant, reason);
          tokens = grant.tokens;
        }
      }
      return this.send(res, front.prepared.render(choose, (entry) => tokens.get(entry.id)));
    }
    if (section === 'artikkel' && parts.length === 2 && isUuid(param)) {
      // Rendered once per model and base path, like the front page: a request sends cached bytes.
      const article = await this.cached(
        pub.id,
        `article:${pub.id}:${ctx.base}:${param}`,
        async () => {
          const value = await pages.publishedArticle(pub.id, param!);
          return value ? { etag: etagOf(value), page: Buffer.from(renderArticle(ctx, value)) } : null;
        },
        (a) => 200 + (a?.page.length ?? 0),
      );
      if (!article) return this.notFound(res, ctx);
      if (this.fresh(req, res, article.etag)) return;
      return this.send(res, article.page);
    }
    if (section === 't' && parts.length === 2 && isUuid(param)) {
      const variant = isUuid(req.query.v) ? req.query.v : undefined;
      const impression = typeof req.query.i === 'string' && req.query.i.length <= 100 ? req.query.i : undefined;
      // Counts only with the signed id of a counted impression of this variant, once
      // (AbClientGate): no impression, no click; an unsigned click redirects and counts nothing.
      if (variant && countsAsView(req.method, (name) => req.get(name)) && (await this.deps.abGate.click(impression, pub.id, param!, variant))) this.deps.recorder.click(variant);
      res.set('Cache-Control', 'no-store');
      return res.redirect(302, `${ctx.base}/artikkel/${param}`);
    }
    if (section === 'kategori' && parts.length === 2 && page !== undefined) {
      const tag = normalizeTag(safeDecode(param!) ?? '');
      if (!tag) return this.notFound(res, ctx);
      const listing = await this.cached(pub.id, `tag:${pub.id}:${page}:${tag}`, async () => withEtag(paginate(await pages.taggedArticles(pub.id, tag, pageWindow(page)), page)));
      if (!listing.value) return this.notFound(res, ctx);
      if (this.fresh(req, res, listing.etag)) return;
      return this.send(res, renderCategory(ctx, tag, listing.value));
    }
    if (section === 'arkiv' && parts.length === 1 && page !== undefined) {
      const listing = await this.cached(pub.id, `archive:${pub.id}:${page}`, async () => withEtag(paginate(await pages.publishedArticles(pub.id, pageWindow(page)), page)));
      if (!listing.value) return this.notFound(res, ctx);
      if (this.fresh(req, res, listing.etag)) return;
      return this.send(res, renderArchive(ctx, listing.value));
    }
    if (section === 'sok' && parts.length === 1 && page !== undefined) {
      const raw = typeof req.query.q === 'string' ? req.query.q : '';
      // PostgreSQL refuses NUL and lone surrogates (the cut may split a pair): drop them, not a 500.
      const words = storable(raw.slice(0, MAX_SEARCH_CHARS)).trim();
      // Searches are not cached: the words vary too much to be worth the memory. They are capped
      // instead, per address and in all (SearchLimiter): 429 with Retry-After beyond.
      let listing;
      if (words) {
        const slot = this.deps.searches.acquire(this.deps.clients.addressOf(req.ip ?? req.socket.remoteAddress));
        if ('retryAfter' in slot) {
          res.status(429).set({ 'Retry-After': String(slot.retryAfter), 'Cache-Control': 'no-store' }).type('html').send(renderTooManySearches(ctx));
          return;
        }
        try {
          listing = paginate(await pages.searchArticles(pub.id, words, pageWindow(page)), page);
        } finally {
          slot.release();
        }
      }
      if (words && !listing) return this.notFound(res, ctx);
      if (this.fresh(req, res, etagOf({ pub, words, listing }))) return;
      return this.send(res, renderSearch(ctx, words, listing));
    }
    if ((section === 'feed.xml' || section === 'sitemap.xml') && parts.length === 1 && ctx.origin) {
      const feed = section === 'feed.xml';
      const origin = ctx.origin;
      const doc = await this.cached(pub.id, `${section}:${pub.id}:${ctx.base}:${origin}`, async () => {
        const articles = feed ? await pages.publishedArticles(pub.id, { limit: FEED_ITEMS, offset: 0 }) : await pages.publishedArticles(pub.id, { limit: SITEMAP_ITEMS, offset: 0 });
        const body = feed ? renderFeed({ ...ctx, origin }, articles) : renderSitemap({ ...ctx, origin }, articles);
        return { etag: etagOf(body), body };
      });
      if (this.fresh(req, res, doc.etag)) return;
      res.status(200).type(feed ? 'application/rss+xml; charset=utf-8' : 'application/xml; charset=utf-8').send(doc.body);
      return;
    }
    if (section === 'medier' && parts.length === 2 && isUuid(param) && this.deps.mediaFiles) {
      // Public because the article is: only media an article published here owns (has_media).
      const media = await pages.publishedMedia(pub.id, param!);
      if (!media) return this.notFound(res, ctx);
      return sendMediaFile(req, res, media, this.deps.mediaFiles, 'public, max-age=300');
    }
    if (section === 'om' && parts.length === 1) {
      if (this.fresh(req, res, etagOf(pub))) return;
      return this.send(res, renderAbout(ctx));
    }
    return this.notFound(res, ctx);
  }

  /** Sets the validators; true (and 304 sent) when the client's copy is current. */
  private fresh(req: Request, res: Response, etag: string, cacheControl = 'no-cache'): boolean {
    // no-cache: a browser revalidates every time, so a change shows at once and a 304 is cheap.
    res.set({ ETag: etag, 'Cache-Control': cacheControl });
    if (!req.fresh) return false;
    res.status(304).end();
    return true;
  }

  private send(res: Response, page: string | Buffer): void {
    res.status(200).type('html').send(page);
  }

  notFound(res: Response, ctx: PageContext | undefined): void {
    pageSecurity(res);
    res.status(404).set('Cache-Control', 'no-cache').type('html').send(renderNotFound(ctx));
  }
}

/** No script, no sniffing, no framing (PAGE_CSP); a media file answered here sets its own. */
function pageSecurity(res: Response): void {
  res.set({ 'Content-Security-Policy': PAGE_CSP, 'X-Content-Type-Options': 'nosniff' });
}

/** The page kinds' route patterns, for metrics and logs; anything else under a publication is one more. */
const PAGE_PATTERNS: Readonly<Record<string, string>> = {
  artikkel: '/artikkel/:id',
  t: '/t/:id',
  kategori: '/kategori/:tag',
  medier: '/medier/:id',
  arkiv: '/arkiv',
  sok: '/sok',
  om: '/om',
  'feed.xml': '/feed.xml',
  'sitemap.xml': '/sitemap.xml',
};

/** `/pub/:slug/artikkel/:id` on the service's host, `domain:/artikkel/:id` on a custom domain. */
function pageRoute(ctx: PageContext | undefined, section: string | undefined): string {
  const prefix = ctx === undefined || ctx.base !== '' ? '/pub/:slug' : 'domain:';
  const suffix = section === undefined ? (ctx?.base === '' ? '/' : '') : Object.prototype.hasOwnProperty.call(PAGE_PATTERNS, section) ? PAGE_PATTERNS[section]! : '/*';
  return `${prefix}${suffix}`;
}

/** A page model with a validator derived from it: the same data gives the same ETag. */
function withEtag<T>(value: T): { value: T; etag: string } {
  return { value, etag: etagOf(value ?? null) };
}

function etagOf(value: unknown): string {
  return `W/"${createHash('sha1').update(JSON.stringify(value)).digest('base64url')}"`;
}

function safeDecode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
