import type { Actor } from '@inntak/access';
import type { AbResultsStore, AbStatus, AbTestStore, AbTestTx, DecisionEntry, TestKey } from '@inntak/ab-testing';
import type { NewEdgeRow, PageLanguage, PageWindow, PublicationSettings, PublishedPages, PublishingStore, PublishingTx } from '@inntak/publishing';
import { deleteEdges, insertEdge, levelOn, nodeKindOf } from '../graph/index.js';
import { testingVariants } from './ab-events.js';
import { decisionsOf, recordDecision, recordLook, resultVariants, startRound } from './ab-rounds.js';
import { collectionsOf, edgeOfType, insertPublishedIn, isPublishedIn, nodeTitle, publishedInEdgesOf } from './articles.js';
import { frontPageEntries, publishedArticle, publishedArticles, publishedMedia, searchArticles, taggedArticles } from './pages.js';
import { insertPublication, isPublication, updatePublication, lockPublication, publicationByDomain, publicationBySlug } from './publications.js';
import type { Db, Trx } from './trx.js';
import type { ReadOn } from '../platform/index.js';
import { patchEdgeMetadata, setPaused, setStatus, variantsOfType, writeCounters } from './variants.js';

/** One publishing transaction's reads and writes: the queries of this folder, nothing decided here. */
export class PostgresPublishingTx implements PublishingTx, AbTestTx {
  constructor(private readonly trx: Trx) {}
  levelOn = (actor: Actor, nodeId: string) => levelOn(this.trx, actor, nodeId);
  nodeKindOf = (nodeId: string) => nodeKindOf(this.trx, nodeId);
  lockPublication = (nodeId: string) => lockPublication(this.trx, nodeId);
  insertPublication = (settings: PublicationSettings, ownerId: string) => insertPublication(this.trx, settings, ownerId);
  collectionsOf = (nodeId: string) => collectionsOf(this.trx, nodeId);
  publishedInEdgesOf = (nodeId: string) => publishedInEdgesOf(this.trx, nodeId);
  insertPublishedIn = (nodeId: string, publicationId: string, createdBy: string | null) => insertPublishedIn(this.trx, nodeId, publicationId, createdBy);
  isPublishedIn = (articleId: string, publicationId: string) => isPublishedIn(this.trx, articleId, publicationId);
  nodeTitle = (nodeId: string) => nodeTitle(this.trx, nodeId);
  edgeOfType = (edgeId: string, edgeType: string) => edgeOfType(this.trx, edgeId, edgeType);
  insertEdge = (edge: NewEdgeRow) => insertEdge(this.trx, edge);
  deleteEdges = (edgeIds: readonly string[]) => deleteEdges(this.trx, edgeIds);
  patchEdgeMetadata = (edgeId: string, set: Record<string, unknown>, remove: readonly string[]) => patchEdgeMetadata(this.trx, edgeId, set, remove);
  updatePublication = (publicationId: string, change: { title?: string; about?: string; language?: PageLanguage }) => updatePublication(this.trx, publicationId, change);
  variantsOfType = (publicationId: string, articleId: string, variantType: string) => variantsOfType(this.trx, publicationId, articleId, variantType);
  writeCounters = (edgeIds: readonly string[]) => writeCounters(this.trx, edgeIds);
  setStatus = (edgeIds: readonly string[], status: AbStatus) => setStatus(this.trx, edgeIds, status);
  setPaused = (edgeIds: readonly string[], paused: boolean) => setPaused(this.trx, edgeIds, paused);
  testingVariants = (limit: number) => testingVariants(this.trx, limit);
  startRound = (test: TestKey, startedBy: string | null, variantId: string) => startRound(this.trx, test, startedBy, variantId);
  recordDecision = (entry: DecisionEntry) => recordDecision(this.trx, entry);
  recordLook = (test: TestKey, reason: string | null) => recordLook(this.trx, test, reason);
}

/** The publishing and A/B evaluation ports on PostgreSQL: each transaction one kysely transaction. */
export class PostgresPublishingStore implements PublishingStore, AbTestStore {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (tx: PostgresPublishingTx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new PostgresPublishingTx(trx)));
  }
}

/** The published pages' reads (pages.ts) on PostgreSQL. */
export class PostgresPublishedPages implements PublishedPages {
  /**
   * `read`: where each read runs (a replica that has replayed every change so far,
   * ReadReplicas.read(…, consistent): pages are cached until the next change, so never older; the
   * primary again if the replica fails it); absent: `db`.
   */
  constructor(
    private readonly db: Db,
    private readonly read: ReadOn = (fn) => fn(db),
  ) {}
  publicationBySlug = (slug: string) => this.read((db) => publicationBySlug(db, slug));
  publicationByDomain = (domain: string) => this.read((db) => publicationByDomain(db, domain));
  publishedArticles = (publicationId: string, window: PageWindow) => this.read((db) => publishedArticles(db, publicationId, window));
  frontPageEntries = (publicationId: string, window: PageWindow) => this.read((db) => frontPageEntries(db, publicationId, window));
  publishedArticle = (publicationId: string, articleId: string) => this.read((db) => publishedArticle(db, publicationId, articleId));
  // Serving a medium moves its last access (pruning), so it stays on the primary.
  publishedMedia = (publicationId: string, mediaId: string) => publishedMedia(this.db, publicationId, mediaId);
  taggedArticles = (publicationId: string, tag: string, window: PageWindow) => this.read((db) => taggedArticles(db, publicationId, tag, window));
  searchArticles = (publicationId: string, words: string, window: PageWindow) => this.read((db) => searchArticles(db, publicationId, words, window));
}

/** The A/B results' reads (ab_results) on PostgreSQL. */
export class PostgresAbResults implements AbResultsStore {
  constructor(private readonly db: Db) {}
  levelOn = (actor: Actor, nodeId: string) => levelOn(this.db, actor, nodeId);
  isPublication = (nodeId: string) => isPublication(this.db, nodeId);
  testVariants = (publicationId: string, limit: number) => resultVariants(this.db, publicationId, limit);
  decisions = (publicationId: string, perTest: number) => decisionsOf(this.db, publicationId, perTest);
}
