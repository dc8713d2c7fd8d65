import type { AbStatus } from '@inntak/ab-testing';
import type { Actor } from '@inntak/access';
import type { CollectionReads } from './collection-reads.js';

/**
 * Glossary.
 * - session: a logged-in browser. The cookie holds a random token; the store keeps only its
 *   SHA-256 (`tokenHash`), the identity it proved (issuer, subject) and the session's CSRF token.
 * - login: an OpenID Connect authorization under way: the PKCE verifier and nonce, stored under
 *   the hash of its `state` until the callback takes them (once).
 */
export interface StoredSession {
  issuer: string;
  subject: string;
  csrfToken: string;
  expiresAt: Date;
}

export interface StoredLogin {
  codeVerifier: string;
  nonce: string;
}

/** The console's sessions and logins under way (packages/postgres/src/studio implements it). */
export interface StudioSessionStore {
  /** Stores a session; removes expired sessions and logins on the way. */
  insertSession(tokenHash: Buffer, session: StoredSession): Promise<void>;
  /** The session by its token's hash, if it has not expired at `now`. */
  findSession(tokenHash: Buffer, now: Date): Promise<StoredSession | undefined>;
  deleteSession(tokenHash: Buffer): Promise<void>;
  /**
   * Stores a login under way, after removing expired ones; false (nothing stored) when
   * MAX_PENDING_LOGINS live ones are already waiting: /studio/login/start takes no credential, so
   * its rows must be bounded.
   */
  insertLogin(stateHash: Buffer, login: StoredLogin, expiresAt: Date): Promise<boolean>;
  /** Removes and returns the login, if it has not expired at `now`: a state is good for one callback. */
  takeLogin(stateHash: Buffer, now: Date): Promise<StoredLogin | undefined>;
}

/** A publication the caller may see in the console, with the caller's level on it. */
export interface PublicationEntry {
  id: string;
  title: string;
  slug: string;
  /** The caller's level on it; null for a system administrator without an access row. */
  level: string | null;
}

/** One front-page variant of an article, with its counters as the edge and the AB events have them. */
export interface VariantEntry {
  id: string;
  variantType: string;
  title: string;
  teaser: string | null;
  status: AbStatus | null;
  impressions: number;
  clicks: number;
}

export interface ArticleEntry {
  id: string;
  title: string | null;
  /** The published_in edge (what unpublish_article takes). */
  publishedEdgeId: string;
  publishedAt: Date;
  variants: VariantEntry[];
}

/** Counted impressions and clicks of a variant per hour, oldest first (for the cumulative chart). */
export interface VariantHour {
  variantId: string;
  hour: Date;
  impressions: number;
  clicks: number;
}

/** A collection the caller may write nodes into. */
export interface WritableCollection {
  id: string;
  title: string;
  /** The publication's slug when the collection is one. */
  publicationSlug: string | null;
}

/** An orchestration the caller administers. */
export interface OrchestrationEntry {
  id: string;
  title: string | null;
  /** The collection it belongs to, if the caller may see it; null: none (or hidden). */
  collectionId: string | null;
  collectionTitle: string | null;
  /** The trigger's event (node.created, edge.created). */
  trigger: string | null;
  enabled: boolean;
}

/** A webhook the caller administers that refused or failed requests in a window (the home page). */
export interface FailingWebhook {
  id: string;
  title: string | null;
  /** Requests refused in the window (the counted refusals: 400, 401, 404, 413, 415, 429 …). */
  refused: number;
  /** Logged deliveries in the window that were not taken in (a status other than 200). */
  failed: number;
  /** The newest of them. */
  lastAt: Date;
}

/**
 * The console's own reads, each filtered by the caller's access like every read path and
 * bounded. Every write goes through the use cases the API uses; these only find what to show.
 */
export interface StudioReads extends CollectionReads {
  /** Publications where the actor is member or better (system administrators: all), by title; at most `limit`. */
  publications(actor: Actor, limit: number): Promise<PublicationEntry[]>;
  /** The publication if the actor may see it in the console (as `publications`). */
  publication(actor: Actor, publicationId: string): Promise<PublicationEntry | undefined>;
  /** The publication's articles, newest published first, with their variants (retired ones too); a page. */
  articles(publicationId: string, window: { limit: number; offset: number }): Promise<ArticleEntry[]>;
  /** Counts of the variants in their test's current round (as the A/B results count) per hour, or per 5 minutes while the test's counts span under six hours; oldest first, at most `maxHours` hours back from the newest. */
  variantHours(variantIds: readonly string[], maxHours: number): Promise<VariantHour[]>;
  /**
   * Collections a node may be written into by the actor (create_node's collection_id: member or
   * better; system administrators: all), publications first, then by title; at most `limit`.
   */
  writableCollections(actor: Actor, limit: number): Promise<WritableCollection[]>;
  /** Orchestrations the actor administers (system administrators: all), by collection; at most `limit`. */
  orchestrations(actor: Actor, limit: number): Promise<OrchestrationEntry[]>;
  /** The person node's display name (its title); null when it has none. */
  personName(personId: string): Promise<string | null>;
  /**
   * Webhooks the actor administers (admin on their collection; system administrators all) with
   * refused or failed requests at or after `since`, most first; at most `limit`, and `total` the
   * number of such webhooks.
   */
  failingWebhooks(actor: Actor, since: Date, limit: number): Promise<{ webhooks: FailingWebhook[]; total: number }>;
}

/** Logins under way (OpenID state) kept at most; beyond, /studio/login/start answers 503 until some end or expire. */
export const MAX_PENDING_LOGINS = 10_000;
