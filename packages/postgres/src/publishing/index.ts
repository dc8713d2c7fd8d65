// Publishing: the queries behind the publishing and A/B ports (publishing-store.ts), the pages'
// reads, AB events. The use cases are packages/publishing's and packages/ab-testing's.
export { publicationBySlug, publicationByDomain } from './publications.js';
export { PUBLISHED_IN, FRONT_PAGE_VARIANT } from './articles.js';
export { recordAbCounts, type AbCountRow } from './ab-events.js';
export { PostgresImpressionStore } from './ab-impressions.js';
export { PostgresPublishingStore, PostgresPublishedPages, PostgresAbResults } from './publishing-store.js';
export type { NewPublication, NewVariant } from '@inntak/publishing';
export type { TestReport, TestResult } from '@inntak/ab-testing';
export {
  publishedArticles,
  frontPageEntries,
  publishedArticle,
  taggedArticles,
  searchArticles,
  publicationsTouched,
} from './pages.js';
