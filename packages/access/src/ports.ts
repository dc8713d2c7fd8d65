import type { JsonObject, Visibility } from '@inntak/graph';
import type { Actor } from './identity.js';
import type { WriterLevel } from './level-check.js';

/**
 * The graph's write port: what the graph use cases (graph-writes.ts, grant-access.ts,
 * tag-node.ts) read and write, in one transaction. Plain reads and writes, no actor logic: the
 * use cases authorize (the write policy), check invariants and throw. packages/postgres
 * implements it (src/graph/graph-store.ts).
 */
export interface GraphStore {
  /**
   * Runs `work` in one transaction. A transaction the database aborted as a deadlock or
   * serialization failure is run again whole (the adapter's business), still failing it answers
   * 409; inside an open transaction the work joins it and its owner decides about retries.
   */
  transaction<T>(work: (tx: GraphTx) => Promise<T>): Promise<T>;
}

export interface NodeRow {
  id?: string;
  node_kind: string;
  title?: string | null;
  content?: string | null;
  visibility?: Visibility;
  metadata?: JsonObject;
  created_by: string | null;
}

export interface EdgeRow {
  source_id: string;
  target_id: string;
  edge_type: string;
  metadata?: JsonObject;
  created_by: string | null;
  system?: boolean;
}

export interface StoredEdge {
  id: string;
  source_id: string;
  target_id: string;
  edge_type: string;
  system: boolean;
}

export interface GraphTx {
  /** The node's kind and the actor's level on it, through the read filter (level-check.ts). */
  levelOn(actor: Actor, nodeId: string): Promise<WriterLevel | undefined>;
  /** The node's kind; undefined when it does not exist. `forUpdate` takes its row lock. */
  nodeKindOf(nodeId: string, options?: { forUpdate?: boolean }): Promise<string | undefined>;
  /** Inserts a node (hidden and with empty metadata unless given); returns its id. */
  insertNode(node: NodeRow): Promise<string>;
  /** Sets the node's title and content (undefined: unchanged), as update_node decided. */
  updateNode(nodeId: string, change: { title?: string | null; content?: string | null }): Promise<void>;
  /** Inserts an edge and propagates the access it grants or passes down; returns its id. */
  insertEdge(edge: EdgeRow): Promise<string>;
  /** Deletes edges; the access rows they granted are recomputed. */
  deleteEdges(edgeIds: readonly string[]): Promise<void>;
  /** A person node with its identity (and system administrator row). */
  insertPerson(person: { subject: string; issuer: string; name: string | null; admin: boolean }): Promise<string>;
  edge(edgeId: string): Promise<StoredEdge | undefined>;
  /** The id of an edge of the type between the two nodes, if there is one. */
  edgeBetween(sourceId: string, targetId: string, edgeType: string): Promise<string | undefined>;
  /** Whether the source has an `observes` edge other than `exceptEdgeId`. */
  hasOtherObservesEdge(sourceId: string, exceptEdgeId: string): Promise<boolean>;
  /** The one lock every user-made belongs_to edge is checked under (held to the end of the transaction). */
  lockBelongsTo(): Promise<void>;
  /** True when `from` reaches `to` along belongs_to edges. */
  reaches(from: string, to: string): Promise<boolean>;
  /** The longest chain of belongs_to edges going up from `id`, walked to one past `limit`. */
  chainAbove(id: string, limit: number): Promise<number>;
  /** The longest chain of belongs_to edges coming down into `id`, walked to one past `limit`. */
  chainBelow(id: string, limit: number): Promise<number>;
  /** The granting edges (owner, member_of) from the subject to the object. */
  explicitGrantEdges(subjectId: string, objectId: string): Promise<Array<{ id: string; edge_type: string }>>;
  /** The sources of the object's owner edges, each edge locked for update. */
  ownersForUpdate(objectId: string): Promise<string[]>;
  /** Whether the node has a published_in edge (it is on a publication's public pages). */
  isPublished(nodeId: string): Promise<boolean>;
  /** The targets of the node's belongs_to edges. */
  belongsToTargets(nodeId: string): Promise<string[]>;
  /** The tag's node (made, open and owned by nobody, when it does not exist yet): its id. */
  tagNodeId(tag: string): Promise<string>;
}

/** A store whose every transaction is `tx`, already open: a use case's step run inside another's transaction. */
export function inTransaction<Tx extends GraphTx>(tx: Tx): GraphStore {
  return { transaction: (work) => work(tx) };
}

/** A person in the directory (directory.ts), for a system administrator. */
export interface PersonEntry {
  id: string;
  name: string | null;
  /** A system administrator (`inntak person add --admin`). */
  admin: boolean;
  /** The login identities that are this person; issuer '' matches any issuer. */
  identities: Array<{ issuer: string; subject: string }>;
  created_at: Date;
}

/** A collection in the directory (directory.ts). */
export interface CollectionEntry {
  id: string;
  title: string | null;
  /** The publication's slug, when the collection is a publication. */
  publication: string | null;
  created_at: Date;
}

/**
 * The directory's reads (directory.ts): bounded pages in id order, starting after `after`.
 * packages/postgres implements it (src/graph/directory-reads.ts).
 */
export interface DirectoryReads {
  persons(page: { limit: number; after?: string }): Promise<PersonEntry[]>;
  /** The collections `viewerId` may see through the read filter; null: every collection. */
  collections(viewerId: string | null, page: { limit: number; after?: string }): Promise<CollectionEntry[]>;
}
