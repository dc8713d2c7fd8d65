// Publishing: publications, published articles, front-page variants, the pages' reads, AB events.
export { createPublication, publicationBySlug, publicationByDomain, type NewPublication } from './publications.js';
export { publishArticle, unpublishArticle, unpublishNode, PUBLISHED_IN, FRONT_PAGE_VARIANT } from './articles.js';
export { createVariant, abOverride, type NewVariant } from './variants.js';
export { recordAbCounts, runAbEvaluation, type AbCountRow, type TestReport } from './ab-events.js';
export {
  publishedArticles,
  frontPageEntries,
  publishedArticle,
  taggedArticles,
  searchArticles,
  publicationsTouched,
} from './pages.js';
