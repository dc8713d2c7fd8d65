import { type Transaction } from 'kysely';
import { AppError } from '@inntak/core';
import { edgeRule, requirePublishable, type Actor, type EndNeed } from '@inntak/access';
import type { Database, Db } from '../platform/index.js';
import { deleteEdges, insertEdge, requireEnd, requireLevel } from '../graph/index.js';
import { requirePublication } from './publications.js';

type Trx = Transaction<Database>;

/** The publishing edge (article → publication) that storage pruning honours: keep name and direction. */
export const PUBLISHED_IN = 'published_in';
/** A front-page variant: publication → article. */
export const FRONT_PAGE_VARIANT = 'front_page_variant';

/**
 * Publishes a node in a publication, by the write policy's published_in rule: admin on the
 * publication, admin on the node and on every collection the node belongs to (publishing shows
 * the whole node to everyone: only those who administer where it lives may), and a kind that is
 * publishable (never a collection, person, webhook, orchestration or cli_tool).
 */
export async function publishArticle(db: Db, actor: Actor, input: { publication_id: string; node_id: string }): Promise<{ edge_id: string }> {
  const rule = edgeRule(PUBLISHED_IN).create;
  try {
    return await db.transaction().execute(async (trx) => {
      await requirePublication(trx, actor, input.publication_id, 'publication_id', rule.target);
      const node = await requireLevel(trx, actor, input.node_id, null, 'node_id');
      requirePublishable(node.node_kind, 'node_id');
      await requireEnd(trx, actor, input.node_id, rule.source, 'node_id');
      await requireCollectionsAdmin(trx, actor, input.node_id, rule.source);
      const edgeId = await insertEdge(trx, {
        source_id: input.node_id,
        target_id: input.publication_id,
        edge_type: PUBLISHED_IN,
        created_by: actor.personId,
      });
      return { edge_id: edgeId };
    });
  } catch (error) {
    if ((error as { code?: string }).code === '23505') {
      throw new AppError('conflict', { detail: 'artikkelen er allerede publisert i publikasjonen', cause: error });
    }
    throw error;
  }
}

/**
 * The node's own collections (the targets of its belongs_to edges): the caller must hold `level`
 * on each, or 403 naming the field (the collections' existence is not news: the node's edges show them).
 */
async function requireCollectionsAdmin(trx: Trx, actor: Actor, nodeId: string, level: EndNeed): Promise<void> {
  const collections = await trx.selectFrom('edges').select('target_id').where('source_id', '=', nodeId).where('edge_type', '=', 'belongs_to').execute();
  for (const { target_id } of collections) {
    try {
      await requireEnd(trx, actor, target_id, level, 'node_id');
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') throw new AppError('forbidden', { detail: 'node_id: krever admin på samlingene noden hører til' });
      throw err;
    }
  }
}

/**
 * Removes a published_in edge, by the write policy's rule: admin on its publication, or admin
 * on the node (its collections' admins hold it through belongs_to), so whoever administers the
 * node can always take it off any publication. The article's variants stay (they show again if
 * it is republished).
 */
export async function unpublishArticle(db: Db, actor: Actor, input: { edge_id: string }): Promise<{ edge_id: string }> {
  const rule = edgeRule(PUBLISHED_IN);
  return db.transaction().execute(async (trx) => {
    const edge = await trx.selectFrom('edges').select(['id', 'source_id', 'target_id']).where('id', '=', input.edge_id).where('edge_type', '=', PUBLISHED_IN).executeTakeFirst();
    if (!edge) throw new AppError('not_found', { detail: 'edge_id' });
    try {
      await requirePublication(trx, actor, edge.target_id, 'edge_id', rule.delete.target);
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 'forbidden' && err.code !== 'not_found') || !rule.cleanup) throw err;
      await requireLevel(trx, actor, edge.source_id, rule.cleanup, 'edge_id').catch(() => {
        throw err;
      });
    }
    await deleteEdges(trx, [edge.id]);
    return { edge_id: edge.id };
  });
}

/**
 * Takes a node off every publication it is published in (its published_in edges), by the same
 * rule's cleanup: admin on the node. Its admins may unpublish it from any publication, but a
 * publication hidden from them hides the edge too (an edge shows only to callers who may see both
 * ends), so they could not name it to unpublish_article (second attack on issue 22). Answers how
 * many were removed, not where: the publications stay hidden.
 */
export async function unpublishNode(db: Db, actor: Actor, input: { node_id: string }): Promise<{ node_id: string; removed: number }> {
  const rule = edgeRule(PUBLISHED_IN);
  return db.transaction().execute(async (trx) => {
    await requireLevel(trx, actor, input.node_id, rule.cleanup ?? 'admin', 'node_id');
    const edges = await trx.selectFrom('edges').select('id').where('source_id', '=', input.node_id).where('edge_type', '=', PUBLISHED_IN).execute();
    if (edges.length > 0) await deleteEdges(trx, edges.map((e) => e.id));
    return { node_id: input.node_id, removed: edges.length };
  });
}
