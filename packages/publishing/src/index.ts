export { html, Html, escapeHtml, type HtmlValue } from './html.js';
export { renderMarkdown, plainText } from './markdown.js';
export { isValidSlug, normalizeDomain, hostName } from './validation.js';
export { PAGE_SIZE, MAX_PAGE, parsePage, pageWindow, paginate, type PageWindow } from './pagination.js';
export { formatDay, monthKey, monthLabel, groupByMonth, type MonthGroup } from './dates.js';
export {
  excerptOf,
  pageLanguageOf,
  PAGE_LANGUAGES,
  type PageLanguage,
  clipArticle,
  MAX_ARTICLE_CHARS,
  EXCERPT_LENGTH,
  UNTITLED,
  type Publication,
  type ArticleSummary,
  type Article,
  type ArticleMedia,
  type FrontPageVariant,
  type FrontPageEntry,
  type Listing,
  type RenderedEntry,
} from './models.js';
export { CHROME, type Chrome } from './chrome.js';
export { PAGE_CSP, mediaPath, prepareFrontPage, renderFrontPage, renderArticle, renderCategory, renderArchive, renderSearch, renderAbout, renderNotFound, renderTooManySearches, type PageContext, type PreparedFrontPage } from './render.js';
export { PUBLISHED_IN, FRONT_PAGE_VARIANT, type PublishingStore, type PublishingTx, type PublishedPages, type PublicationSettings, type NewEdgeRow } from './ports.js';
export { createPublication, type NewPublication } from './publications.js';
export { publishArticle, unpublishArticle, unpublishNode } from './articles.js';
export { createVariant, abOverride, type NewVariant } from './variants.js';
export { updatePublication, updateVariant, removeVariant, type PublicationChange, type VariantChange } from './edits.js';
export { pauseAbTest, resumeAbTest, type AbTestRef } from './ab-pause.js';
export { renderFeed, renderSitemap } from './feeds.js';
