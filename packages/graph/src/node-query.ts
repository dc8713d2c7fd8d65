import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { AppError, isUuid } from '@inntak/core';
import type { GraphEdge, GraphNode, Visibility } from './types.js';

/**
 * GET /query/nodes as the domain sees it: which nodes, in which order, from which point.
 * - keyset: the last row of a page — its id, and its rank when the query is a ranked search.
 *   The next page is every row strictly after it in the query's order.
 * - cursor: a keyset packed into an opaque text for the client to send back unchanged.
 */
export interface NodeQuery {
  /** Words to search title and content for; results are ranked. */
  text?: string;
  nodeKinds?: string[];
  visibilities?: Visibility[];
  createdBy?: string;
  /** Nodes with a belongs_to edge to this collection. */
  collectionId?: string;
  /** Inclusive lower and exclusive upper bound on created_at. */
  createdFrom?: Date;
  createdBefore?: Date;
  /** Page size, 1..MAX_QUERY_LIMIT. */
  limit: number;
  after?: Keyset;
}

export interface Keyset {
  id: string;
  /** The row's rank, as PostgreSQL printed the float4 (exact round trip); ranked search only. */
  rank?: string;
  /** Ranked search only: the window the row was ranked in (docs/query.md). */
  window?: SearchWindow;
}

/**
 * A search ranks windows of matches: the matches with ids from `floor` (null: the oldest) up
 * to `top`, both inclusive; `walk` says how they were found, so a cursor reads them back alike.
 */
export interface SearchWindow {
  top: string;
  floor: string | null;
  walk: boolean;
}

export interface QueriedNode {
  node: GraphNode;
  rank?: string;
  creator: boolean;
  access: 'reader' | 'member' | 'admin' | 'owner' | null;
}

export interface NodeQueryPage {
  rows: QueriedNode[];
  /** Present when more rows follow. */
  next?: Keyset;
}

/** A page of a node's edges: at most `limit`, strictly after the edge id `after`, in id order. */
export interface EdgePage {
  limit: number;
  after?: string;
}

/** Largest edge page GET /nodes/{id} serves. */
export const MAX_EDGE_PAGE = 500;

/** One node as a caller may see it, with a page of the edges they may see; `nextEdges` continues it. */
export interface NodeRead {
  node: GraphNode;
  edges: GraphEdge[];
  nextEdges: string | null;
}

/** The read side's port: runs a query as a caller, returning only rows the caller may see. */
export interface NodeQueryStore {
  queryNodes(callerId: string, query: NodeQuery): Promise<NodeQueryPage>;
  /** One node through the read filter (undefined when hidden from the caller), with a page of its edges. */
  readNode(callerId: string, nodeId: string, page?: EdgePage): Promise<NodeRead | undefined>;
}

export const MAX_QUERY_LIMIT = 100;
export const DEFAULT_QUERY_LIMIT = 50;

const RANK_PATTERN = /^(?:\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/i;

/**
 * The cursor is sealed with AES-256-GCM under a server secret (`key`, 32 bytes): a client can
 * neither read the rank inside (it tells how well hidden words matched) nor make a cursor of
 * its own (a forged rank of 1e999 once reached PostgreSQL and answered 500). Layout, base64url:
 * 12-byte nonce, 16-byte tag, then the sealed JSON array [id], [id, rank] or
 * [id, rank, window top, window floor, walked].
 */
export function encodeCursor(keyset: Keyset, key: Uint8Array, query = ''): string {
  const w = keyset.window;
  const parts = keyset.rank === undefined ? [keyset.id] : w === undefined ? [keyset.id, keyset.rank] : [keyset.id, keyset.rank, w.top, w.floor, w.walk];
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(Buffer.from(query, 'utf8'));
  const sealed = Buffer.concat([cipher.update(JSON.stringify(parts), 'utf8'), cipher.final()]);
  return Buffer.concat([nonce, cipher.getAuthTag(), sealed]).toString('base64url');
}

/**
 * Throws invalid_input for anything encodeCursor did not make with this key for this `query`.
 * `query` (the request's text and filters, authenticated with the cursor but not inside it)
 * binds a cursor to the query it came from: a search window read back by another query's words
 * or collection would be walked without the bound it was made under (docs/query.md).
 */
export function decodeCursor(cursor: string, key: Uint8Array, query = ''): Keyset {
  let parts: unknown;
  try {
    const raw = Buffer.from(cursor, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(query, 'utf8'));
    decipher.setAuthTag(raw.subarray(12, 28));
    parts = JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8'));
  } catch {
    parts = undefined;
  }
  if (Array.isArray(parts) && [1, 2, 5].includes(parts.length) && isUuid(parts[0])) {
    if (parts.length === 1) return { id: parts[0].toLowerCase() };
    // Sealed by us, so always well-formed; checked anyway, as the database would answer 500.
    if (typeof parts[1] === 'string' && RANK_PATTERN.test(parts[1]) && Number.isFinite(Math.fround(Number(parts[1])))) {
      if (parts.length === 2) return { id: parts[0].toLowerCase(), rank: parts[1] };
      const [, , top, floor, walk] = parts as unknown[];
      if (isUuid(top) && (floor === null || isUuid(floor)) && typeof walk === 'boolean') {
        return { id: parts[0].toLowerCase(), rank: parts[1], window: { top: top.toLowerCase(), floor: floor?.toLowerCase() ?? null, walk } };
      }
    }
  }
  throw new AppError('invalid_input', { detail: 'cursor: ikke en cursor fra dette endepunktet' });
}
