import type { Actor, WriterLevel } from '@inntak/access';
import type { AbDecisionWrites, AbStatus } from '@inntak/ab-testing';
import type { Article, ArticleSummary, FrontPageEntry, PageLanguage, Publication } from './models.js';
import type { PageWindow } from './pagination.js';

/** The publishing edge (article → publication) that storage pruning honours: keep name and direction. */
export const PUBLISHED_IN = 'published_in';
/** A front-page variant: publication → article. */
export const FRONT_PAGE_VARIANT = 'front_page_variant';

/** What a new publication's collection node carries in metadata.publication. */
export interface PublicationSettings {
  slug: string;
  title: string;
  about: string;
  domains: string[];
  language: PageLanguage;
}

export interface NewEdgeRow {
  source_id: string;
  target_id: string;
  edge_type: string;
  metadata?: Record<string, unknown>;
  created_by: string | null;
}

/** Plain reads and writes inside one publishing transaction (row locks as named). */
export interface PublishingTx extends AbDecisionWrites {
  /** The node's kind and the actor's level on it; undefined when it is missing or hidden from the actor. */
  levelOn(actor: Actor, nodeId: string): Promise<WriterLevel | undefined>;
  /** The node's kind, whoever asks; undefined when there is no such node. */
  nodeKindOf(nodeId: string): Promise<string | undefined>;
  /** Locks the node's row if it is a publication (a collection with metadata.publication); false if it is not. */
  lockPublication(nodeId: string): Promise<boolean>;
  /**
   * The collection node with metadata.publication, its owner edge and its custom domains. A slug
   * or domain already taken rejects with a conflict (the adapter maps the unique violation).
   */
  insertPublication(settings: PublicationSettings, ownerId: string): Promise<string>;
  /** The targets of the node's belongs_to edges (its collections). */
  collectionsOf(nodeId: string): Promise<string[]>;
  /**
   * The published_in edge node → publication; null when it is there already (the unique
   * violation aborted the transaction: the caller must throw).
   */
  insertPublishedIn(nodeId: string, publicationId: string, createdBy: string | null): Promise<string | null>;
  isPublishedIn(articleId: string, publicationId: string): Promise<boolean>;
  /** The node's own title (the control of a test started with_original). */
  nodeTitle(nodeId: string): Promise<string | null>;
  /** The ids of the node's published_in edges, into every publication (also those hidden from the caller). */
  publishedInEdgesOf(nodeId: string): Promise<string[]>;
  /** An edge of `edgeType` by id, with its ends and metadata. */
  edgeOfType(edgeId: string, edgeType: string): Promise<{ id: string; source_id: string; target_id: string; metadata: Record<string, unknown> } | undefined>;
  insertEdge(edge: NewEdgeRow): Promise<string>;
  /** Sets keys of an edge's metadata and removes others (a variant's title, teaser, ab_status). */
  patchEdgeMetadata(edgeId: string, set: Record<string, unknown>, remove: readonly string[]): Promise<void>;
  /** Changes metadata.publication's title, about or language (undefined: unchanged), and the collection's title with it. */
  updatePublication(publicationId: string, change: { title?: string; about?: string; language?: PageLanguage }): Promise<void>;
  deleteEdges(edgeIds: readonly string[]): Promise<void>;
  /** The article's variants of a type in the publication, by id, locked. */
  variantsOfType(publicationId: string, articleId: string, variantType: string): Promise<Array<{ id: string; ab_status: AbStatus | null }>>;
  /** Marks the variants paused (metadata paused) or not: a paused test is left off the front page and out of the evaluator. */
  setPaused(edgeIds: readonly string[], paused: boolean): Promise<void>;
}

/** The publishing use cases' port (packages/postgres implements it). */
export interface PublishingStore {
  transaction<T>(work: (tx: PublishingTx) => Promise<T>): Promise<T>;
}

/**
 * The reads behind the published pages. Every one starts from the publication's published_in
 * edges, so a node that is not published in the publication can never appear; every one reads a
 * bounded page (PageWindow) or one row.
 */
export interface PublishedPages {
  publicationBySlug(slug: string): Promise<Publication | undefined>;
  publicationByDomain(domain: string): Promise<Publication | undefined>;
  publishedArticles(publicationId: string, window: PageWindow): Promise<ArticleSummary[]>;
  frontPageEntries(publicationId: string, window: PageWindow): Promise<FrontPageEntry[]>;
  publishedArticle(publicationId: string, articleId: string): Promise<Article | undefined>;
  taggedArticles(publicationId: string, tag: string, window: PageWindow): Promise<ArticleSummary[]>;
  searchArticles(publicationId: string, words: string, window: PageWindow): Promise<ArticleSummary[]>;
  /** A media node owned (has_media) by an article published in the publication; undefined otherwise. */
  publishedMedia(publicationId: string, mediaId: string): Promise<{ id: string; mime: string } | undefined>;
}
