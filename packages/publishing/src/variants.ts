import { AppError } from '@inntak/core';
import { edgeRule, type Actor } from '@inntak/access';
import { requirePublication } from './authorize.js';
import { FRONT_PAGE_VARIANT, type PublishingStore } from './ports.js';

export interface NewVariant {
  publication_id: string;
  article_id: string;
  variant_type: string;
  title: string;
  teaser?: string | null;
  /**
   * When no other variant of the type is in play: make the article's own title the control
   * (variant 1, metadata control) and test this one against it at once, instead of showing this
   * one alone (issue 39: the editor no longer retypes the original headline as variant 1).
   */
  with_original?: boolean;
}

/**
 * create_variant: a front-page variant of a published article (the write policy's
 * front_page_variant rule: admin on the publication; the same rule deletes one, through
 * delete_edge). When another variant of the same type is still in play (not retired), this is a
 * test: every variant of the type in play becomes `testing` (SPEC: States and transitions), a
 * previous winner included, so a new challenger is tested against it, and a new round starts:
 * from now on only new impressions and clicks count, for every variant alike (a winner's old
 * counts against a challenger at zero would decide by history, and split the impressions
 * unevenly). Runs under the publication's row lock.
 */
export function createVariant(store: PublishingStore, actor: Actor, input: NewVariant): Promise<{ edge_id: string; ab_status: 'testing' | null }> {
  const rule = edgeRule(FRONT_PAGE_VARIANT).create;
  return store.transaction(async (tx) => {
    await requirePublication(tx, actor, input.publication_id, 'publication_id', rule.source);
    if (!(await tx.isPublishedIn(input.article_id, input.publication_id))) throw new AppError('conflict', { detail: 'artikkelen er ikke publisert i publikasjonen' });
    const inPlay: Array<{ id: string }> = (await tx.variantsOfType(input.publication_id, input.article_id, input.variant_type)).filter((v) => v.ab_status !== 'retired');
    if (inPlay.length === 0 && input.with_original) {
      const title = (await tx.nodeTitle(input.article_id)) || 'Uten tittel';
      const controlId = await tx.insertEdge({
        source_id: input.publication_id,
        target_id: input.article_id,
        edge_type: FRONT_PAGE_VARIANT,
        metadata: { variant_type: input.variant_type, title, control: true, ab_status: 'testing', impressions: 0, clicks: 0, ctr: 0 },
        created_by: actor.personId,
      });
      inPlay.push({ id: controlId });
    }
    const abStatus = inPlay.length > 0 ? ('testing' as const) : null;
    if (abStatus) await tx.setStatus(inPlay.map((v) => v.id), 'testing');
    const edgeId = await tx.insertEdge({
      source_id: input.publication_id,
      target_id: input.article_id,
      edge_type: FRONT_PAGE_VARIANT,
      metadata: {
        variant_type: input.variant_type,
        title: input.title,
        ...(input.teaser ? { teaser: input.teaser } : {}),
        ab_status: abStatus,
        impressions: 0,
        clicks: 0,
        ctr: 0,
      },
      created_by: actor.personId,
    });
    if (abStatus) {
      await tx.startRound({ publicationId: input.publication_id, articleId: input.article_id, variantType: input.variant_type }, actor.personId, edgeId);
      await tx.writeCounters([...inPlay.map((v) => v.id), edgeId]);
    }
    return { edge_id: edgeId, ab_status: abStatus };
  });
}

/**
 * ab_override, the editor's override (owner or admin of the publication; 403 otherwise): the
 * variant becomes `winner`, the others of its type `retired`. Their counters are brought up to
 * date on the way, and the override goes into the test's history with who made it.
 */
export function abOverride(store: PublishingStore, actor: Actor, input: { edge_id: string }): Promise<{ edge_id: string; ab_status: 'winner'; retired: string[] }> {
  return store.transaction(async (tx) => {
    const edge = await tx.edgeOfType(input.edge_id, FRONT_PAGE_VARIANT);
    if (!edge) throw new AppError('not_found', { detail: 'edge_id' });
    await requirePublication(tx, actor, edge.source_id, 'edge_id');
    const siblings = await tx.variantsOfType(edge.source_id, edge.target_id, String(edge.metadata.variant_type));
    const retired = siblings.filter((v) => v.id !== edge.id).map((v) => v.id);
    await tx.writeCounters(siblings.map((v) => v.id));
    await tx.setStatus([edge.id], 'winner');
    await tx.setStatus(retired, 'retired');
    const test = { publicationId: edge.source_id, articleId: edge.target_id, variantType: String(edge.metadata.variant_type) };
    await tx.recordDecision({ test, kind: 'override', variantId: edge.id, decidedBy: actor.personId, detail: { retired } });
    return { edge_id: edge.id, ab_status: 'winner', retired };
  });
}
