import { AppError } from '@inntak/core';
import { edgeRule, requirePublishable, type Actor, type EndNeed } from '@inntak/access';
import { requireEnd, requireLevel } from '@inntak/access';
import { requirePublication } from './authorize.js';
import { PUBLISHED_IN, type PublishingStore, type PublishingTx } from './ports.js';

/**
 * publish_article: a node in a publication, by the write policy's published_in rule: admin on
 * the publication, admin on the node and on every collection the node belongs to (publishing
 * shows the whole node to everyone: only those who administer where it lives may), and a kind
 * that is publishable (never a collection, person, webhook, orchestration or cli_tool).
 */
export function publishArticle(store: PublishingStore, actor: Actor, input: { publication_id: string; node_id: string }): Promise<{ edge_id: string }> {
  const rule = edgeRule(PUBLISHED_IN).create;
  return store.transaction(async (tx) => {
    await requirePublication(tx, actor, input.publication_id, 'publication_id', rule.target);
    const node = await requireLevel(tx, actor, input.node_id, null, 'node_id');
    requirePublishable(node.node_kind, 'node_id');
    await requireEnd(tx, actor, input.node_id, rule.source, 'node_id');
    await requireCollectionsAdmin(tx, actor, input.node_id, rule.source);
    const edgeId = await tx.insertPublishedIn(input.node_id, input.publication_id, actor.personId);
    if (edgeId === null) throw new AppError('conflict', { detail: 'artikkelen er allerede publisert i publikasjonen' });
    return { edge_id: edgeId };
  });
}

/**
 * The node's own collections (the targets of its belongs_to edges): the caller must hold `level`
 * on each, or 403 naming the field (the collections' existence is not news: the node's edges show them).
 */
async function requireCollectionsAdmin(tx: PublishingTx, actor: Actor, nodeId: string, level: EndNeed): Promise<void> {
  for (const collectionId of await tx.collectionsOf(nodeId)) {
    try {
      await requireEnd(tx, actor, collectionId, level, 'node_id');
    } catch (err) {
      if (err instanceof AppError && err.code === 'not_found') throw new AppError('forbidden', { detail: 'node_id: krever admin på samlingene noden hører til' });
      throw err;
    }
  }
}

/**
 * unpublish_article: removes a published_in edge, by the write policy's rule: admin on its
 * publication, or admin on the node (its collections' admins hold it through belongs_to), so
 * whoever administers the node can always take it off any publication. The article's variants
 * stay (they show again if it is republished).
 */
export function unpublishArticle(store: PublishingStore, actor: Actor, input: { edge_id: string }): Promise<{ edge_id: string }> {
  const rule = edgeRule(PUBLISHED_IN);
  return store.transaction(async (tx) => {
    const edge = await tx.edgeOfType(input.edge_id, PUBLISHED_IN);
    if (!edge) throw new AppError('not_found', { detail: 'edge_id' });
    try {
      await requirePublication(tx, actor, edge.target_id, 'edge_id', rule.delete.target);
    } catch (err) {
      if (!(err instanceof AppError) || (err.code !== 'forbidden' && err.code !== 'not_found') || !rule.cleanup) throw err;
      await requireLevel(tx, actor, edge.source_id, rule.cleanup, 'edge_id').catch(() => {
        throw err;
      });
    }
    await tx.deleteEdges([edge.id]);
    return { edge_id: edge.id };
  });
}

/**
 * unpublish_node: takes a node off every publication it is published in (its published_in
 * edges), by the same rule's cleanup: admin on the node. Its admins may unpublish it from any
 * publication, but a publication hidden from them hides the edge too (an edge shows only to
 * callers who may see both ends), so they could not name it to unpublish_article (second attack
 * on issue 22). Answers how many were removed, not where: the publications stay hidden.
 */
export function unpublishNode(store: PublishingStore, actor: Actor, input: { node_id: string }): Promise<{ node_id: string; removed: number }> {
  const rule = edgeRule(PUBLISHED_IN);
  return store.transaction(async (tx) => {
    await requireLevel(tx, actor, input.node_id, rule.cleanup ?? 'admin', 'node_id');
    const edgeIds = await tx.publishedInEdgesOf(input.node_id);
    if (edgeIds.length > 0) await tx.deleteEdges(edgeIds);
    return { node_id: input.node_id, removed: edgeIds.length };
  });
}
