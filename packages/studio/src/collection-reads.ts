import type { AccessLevel, Actor } from '@inntak/access';

/** A collection the caller holds a level on (system administrators: every collection). */
export interface CollectionEntry {
  id: string;
  title: string | null;
  /** The caller's level from the access matrix; null for a system administrator without one. */
  level: AccessLevel | null;
  /** Set on a publication (metadata.publication). */
  publication: boolean;
}

/** One explicit grant on a collection: an owner or member_of edge from a person. */
export interface MemberEntry {
  personId: string;
  name: string | null;
  /** The person's login subjects (auth_identities), so two people of one name can be told apart. */
  subjects: string[];
  level: AccessLevel;
}

/** A person the picker offers. */
export interface PersonEntry {
  id: string;
  name: string | null;
  subjects: string[];
}

/**
 * The console's reads for collections and their members (issue 39), filtered and bounded like
 * every StudioReads. The writes are packages/access's create_collection, grant_access and
 * revoke_access.
 */
export interface CollectionReads {
  /** Collections the actor holds any level on (system administrators: all), by title; at most `limit`. */
  collections(actor: Actor, limit: number): Promise<CollectionEntry[]>;
  /** The collection if `collections` would list it. */
  collection(actor: Actor, collectionId: string): Promise<CollectionEntry | undefined>;
  /** Its explicit grants (owner, member_of from persons), strongest first, then by name; at most `limit`. */
  members(collectionId: string, limit: number): Promise<MemberEntry[]>;
  /**
   * Persons matching `search`: by a part of the name among the persons the actor sees the grants
   * of (those holding a level on a node the actor administers; system administrators: everyone),
   * or anyone by their exact login subject or id (as grant_access names a person by id). At most `limit`.
   */
  persons(actor: Actor, search: string, limit: number): Promise<PersonEntry[]>;
}
