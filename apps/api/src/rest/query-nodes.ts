import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import { AppError } from '@inntak/core';
import { queryNodes } from '@inntak/access';
import {
  decodeCursor,
  DEFAULT_QUERY_LIMIT,
  encodeCursor,
  MAX_QUERY_LIMIT,
  VISIBILITIES,
  type NodeQuery,
  type NodeQueryStore,
} from '@inntak/graph';
import type { RouteRegistry } from '../route-registry.js';
import { storableText } from '../schemas.js';

/** A list parameter: repeated (`?a=x&a=y`), comma-separated (`?a=x,y`) or both. */
function list<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (raw) =>
      raw === undefined
        ? undefined
        : (Array.isArray(raw) ? raw : [raw]).flatMap((v) => (typeof v === 'string' ? v.split(',') : [v])).map((v) => (typeof v === 'string' ? v.trim() : v)),
    z.array(item).min(1).max(20).optional(),
  );
}

const instant = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .transform((text) => new Date(text))
  .optional();

/** Longer than any cursor this endpoint makes (a search's, with its window: ≈ 220). */
const MAX_CURSOR_CHARS = 400;

/** GET /query/nodes query parameters (docs/query.md). Unknown parameters are refused. */
export const queryNodesParams = z.strictObject({
  q: storableText(z.string().trim().min(1).max(500)).optional(),
  node_kind: list(z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'expected a node kind like content')),
  visibility: list(z.enum(VISIBILITIES)),
  created_by: z.guid().optional(),
  collection: z.guid().optional(),
  created_from: instant,
  created_before: instant,
  limit: z.coerce.number().int().min(1).max(MAX_QUERY_LIMIT).default(DEFAULT_QUERY_LIMIT),
  // A search's cursor also names its window (two ids): about 220 characters sealed.
  cursor: z.string().max(MAX_CURSOR_CHARS).optional(),
});

/** One node as the caller may see it: a discoverable summary has null content and {} metadata. */
export const queriedNodeSchema = z.object({
  id: z.guid(),
  node_kind: z.string(),
  title: z.string().nullable(),
  content: z.string().nullable(),
  visibility: z.enum(VISIBILITIES),
  metadata: z.record(z.string(), z.unknown()),
  created_by: z.guid().nullable(),
  created_at: z.iso.datetime(),
});

export const queryNodesResponse = z.object({
  nodes: z.array(queriedNodeSchema),
  /** Pass back as `cursor` for the next page; null on the last page. */
  next_cursor: z.string().nullable(),
});

export interface QueryNodesDeps {
  store: NodeQueryStore;
  /** The 32-byte key that seals cursors (server_secrets `query_cursor`). */
  cursorKey: () => Promise<Uint8Array>;
}

export function installQueryNodes(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: QueryNodesDeps): void {
  registry.route(
    app,
    {
      method: 'get',
      path: '/query/nodes',
      summary: 'Search and list the nodes the caller may see',
      description: 'Full-text search (ranked), filters and keyset pagination; see docs/query.md.',
      tags: ['query'],
      auth: 'jwt',
      query: queryNodesParams,
      response: { status: 200, schema: queryNodesResponse },
      errors: [400, 401, 429],
    },
    auth,
    async ({ query, caller }) => {
      const key = await deps.cursorKey();
      const page = await queryNodes(deps.store, caller.personId, toNodeQuery(query, key));
      const bound = cursorContext(query);
      const { nodes } = page;
      return {
        nodes: nodes.map((n) => ({ ...n, created_at: n.created_at.toISOString() })),
        next_cursor: page.next ? encodeCursor(page.next, key, bound) : null,
      };
    },
  );
}

/** What a cursor is bound to: the query's words and filters (not its page size). */
function cursorContext(params: z.output<typeof queryNodesParams>): string {
  const { q, node_kind, visibility, created_by, collection, created_from, created_before } = params;
  return JSON.stringify([q, node_kind, visibility, created_by?.toLowerCase(), collection?.toLowerCase(), created_from, created_before]);
}

function toNodeQuery(params: z.output<typeof queryNodesParams>, key: Uint8Array): NodeQuery {
  const after = params.cursor === undefined ? undefined : decodeCursor(params.cursor, key, cursorContext(params));
  // A search pages by (rank, id), a listing by id alone: a cursor only fits the kind it came from.
  if (after && (after.rank !== undefined) !== (params.q !== undefined)) {
    throw new AppError('invalid_input', { detail: `cursor: belongs to a ${after.rank === undefined ? 'listing' : 'search'}, not this query` });
  }
  return {
    text: params.q,
    nodeKinds: params.node_kind,
    visibilities: params.visibility,
    createdBy: params.created_by?.toLowerCase(),
    collectionId: params.collection?.toLowerCase(),
    createdFrom: params.created_from,
    createdBefore: params.created_before,
    limit: params.limit,
    after,
  };
}
