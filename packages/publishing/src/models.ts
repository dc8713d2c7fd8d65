import type { AbStatus } from '@inntak/ab-testing';
import { plainText } from './markdown.js';

/**
 * Glossary.
 * - publication: a collection node whose `metadata.publication` holds { slug, title, about, domains }.
 * - article: any node published in a publication by a `published_in` edge article → publication;
 *   only such nodes ever appear on the publication's pages.
 * - variant: a `front_page_variant` edge publication → article (see @inntak/ab-testing).
 * - base path: `/pub/{slug}` on the service's own host, empty on one of the publication's domains.
 */
export interface Publication {
  id: string;
  slug: string;
  title: string;
  about: string;
  domains: string[];
  /** The language of the pages' chrome and dates (`metadata.publication.language`, default nb). */
  language: PageLanguage;
}

/** The languages a publication's pages speak. */
export type PageLanguage = 'nb' | 'en';
export const PAGE_LANGUAGES: readonly PageLanguage[] = ['nb', 'en'];

/** A stored language, nb when it is missing or not one the pages speak (publications made before issue 25). */
export function pageLanguageOf(value: unknown): PageLanguage {
  return value === 'en' ? 'en' : 'nb';
}

export interface ArticleSummary {
  id: string;
  title: string;
  /** The start of the content, for listings. */
  excerpt: string;
  publishedAt: Date;
}

export interface Article extends ArticleSummary {
  /** At most MAX_ARTICLE_CHARS characters (clipArticle). */
  content: string;
  tags: string[];
  /** The stored content was longer than MAX_ARTICLE_CHARS: the page says so. */
  truncated?: boolean;
  /** Media the article owns through has_media edges (its TTS reading, images, video), shown on its page. */
  media?: ArticleMedia[];
}

export interface ArticleMedia {
  id: string;
  kind: 'audio' | 'image' | 'video';
  mime: string;
  /** The media node's title: a caption, an image's alt text. */
  title?: string;
}

/**
 * The most of an article's content a page shows, in characters (issue 22: a 600 KB article made
 * 3 MB of HTML on every request). Longer content is cut, ends with "…" and a note on the page.
 */
export const MAX_ARTICLE_CHARS = 100_000;

/**
 * An article's content cut to MAX_ARTICLE_CHARS (at a word where one is near), with "…".
 * The reads fetch at most MAX_ARTICLE_CHARS + 1 characters, enough to know it was longer.
 */
export function clipArticle(text: string): { content: string; truncated: boolean } {
  if (text.length <= MAX_ARTICLE_CHARS) return { content: text, truncated: false };
  let cut = text.slice(0, MAX_ARTICLE_CHARS);
  // Do not leave half of a surrogate pair behind.
  if (/[\uD800-\uDBFF]$/.test(cut)) cut = cut.slice(0, -1);
  const space = Math.max(cut.lastIndexOf(' '), cut.lastIndexOf('\n'));
  if (space > MAX_ARTICLE_CHARS - 200) cut = cut.slice(0, space);
  return { content: `${cut.trimEnd()}…`, truncated: true };
}

export interface FrontPageVariant {
  id: string;
  variantType: string;
  abStatus: AbStatus | null;
  title: string;
  teaser: string | null;
}

export interface FrontPageEntry extends ArticleSummary {
  variants: FrontPageVariant[];
}

export interface Listing<T> {
  items: T[];
  page: number;
  hasNext: boolean;
}

/** What a front-page render shows for one article: its own title, or the selected variant's. */
export interface RenderedEntry {
  article: ArticleSummary;
  variant?: FrontPageVariant;
}

/** Excerpt length of listings, in characters. */
export const EXCERPT_LENGTH = 280;

/** The first EXCERPT_LENGTH characters of a Markdown text's words, cut at a word where possible. */
export function excerptOf(text: string | null): string {
  const flat = plainText(text ?? '');
  if (flat.length <= EXCERPT_LENGTH) return flat;
  const cut = flat.slice(0, EXCERPT_LENGTH);
  const space = cut.lastIndexOf(' ');
  return `${(space > EXCERPT_LENGTH / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** An article without a title still needs a link text. */
export const UNTITLED = 'Uten tittel';
