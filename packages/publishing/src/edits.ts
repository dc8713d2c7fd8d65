import { AppError } from '@inntak/core';
import { edgeRule, nodeKindRule, type Actor } from '@inntak/access';
import { requirePublication } from './authorize.js';
import type { PageLanguage } from './models.js';
import { FRONT_PAGE_VARIANT, type PublishingStore } from './ports.js';

/**
 * Changes to what create_publication and create_variant made (issue 39): a publication's title,
 * about and language; a variant's title and teaser; a variant removed. Each asks the write
 * policy's row for what it changes and runs under the publication's row lock.
 */

export interface PublicationChange {
  publication_id: string;
  title?: string;
  about?: string;
  language?: PageLanguage;
}

/**
 * update_publication: metadata.publication is a collection's own key (NODE_KIND_RULES.collection
 * `ownKeys`: set_metadata refuses it), changed here by whoever the collection row lets change
 * its settings (`write`: admin). The slug and domains stay: the slug is in every link readers
 * keep, and domains are a system administrator's (create_publication).
 */
export function updatePublication(store: PublishingStore, actor: Actor, input: PublicationChange): Promise<{ id: string }> {
  const { publication_id: id, ...change } = input;
  if (change.title === undefined && change.about === undefined && change.language === undefined) throw new AppError('invalid_input', { detail: 'title, about eller language må være med' });
  const need = nodeKindRule('collection').write;
  return store.transaction(async (tx) => {
    await requirePublication(tx, actor, id, 'publication_id', need === 'system_admin' ? 'owner' : need);
    await tx.updatePublication(id, change);
    return { id };
  });
}

export interface VariantChange {
  edge_id: string;
  title?: string;
  /** null or empty: the article's own excerpt shows instead. */
  teaser?: string | null;
}

/**
 * update_variant: by the front_page_variant row's `changedBy`/`change` rule (admin on the
 * publication). A variant in a running test (`testing`) changes what readers judge, so the test
 * starts a new round: from now on only new impressions and clicks count, for every variant alike
 * (as when a challenger is added). The type stays: a variant moves to another test by being
 * removed and added again.
 */
export function updateVariant(store: PublishingStore, actor: Actor, input: VariantChange): Promise<{ edge_id: string; new_round: boolean }> {
  if (input.title === undefined && input.teaser === undefined) throw new AppError('invalid_input', { detail: 'title eller teaser må være med' });
  const rule = edgeRule(FRONT_PAGE_VARIANT).change!;
  return store.transaction(async (tx) => {
    const edge = await tx.edgeOfType(input.edge_id, FRONT_PAGE_VARIANT);
    if (!edge) throw new AppError('not_found', { detail: 'edge_id' });
    await requirePublication(tx, actor, edge.source_id, 'edge_id', rule.source);
    const set: Record<string, unknown> = {};
    const remove: string[] = [];
    if (input.title !== undefined) set.title = input.title;
    if (input.teaser !== undefined) {
      if (input.teaser) set.teaser = input.teaser;
      else remove.push('teaser');
    }
    await tx.patchEdgeMetadata(edge.id, set, remove);
    const variantType = String(edge.metadata.variant_type);
    const testing = edge.metadata.ab_status === 'testing';
    if (testing) {
      const inPlay = (await tx.variantsOfType(edge.source_id, edge.target_id, variantType)).filter((v) => v.ab_status === 'testing');
      await tx.startRound({ publicationId: edge.source_id, articleId: edge.target_id, variantType }, actor.personId, edge.id);
      await tx.writeCounters(inPlay.map((v) => v.id));
    }
    return { edge_id: edge.id, new_round: testing };
  });
}

/**
 * remove_variant: deletes the variant's edge (its AB events go with it, its decisions keep their
 * history without it), by the front_page_variant row's delete rule (admin on the publication).
 * A test left with one variant in play is no test: that variant stands alone again (ab_status
 * null) and the front page shows it as before the test. A removed winner leaves the retired ones
 * retired: the front page then shows the article's own title, until an editor decides again.
 */
export function removeVariant(store: PublishingStore, actor: Actor, input: { edge_id: string }): Promise<{ edge_id: string }> {
  const rule = edgeRule(FRONT_PAGE_VARIANT).delete;
  return store.transaction(async (tx) => {
    const edge = await tx.edgeOfType(input.edge_id, FRONT_PAGE_VARIANT);
    if (!edge) throw new AppError('not_found', { detail: 'edge_id' });
    await requirePublication(tx, actor, edge.source_id, 'edge_id', rule.source);
    await tx.deleteEdges([edge.id]);
    const left = (await tx.variantsOfType(edge.source_id, edge.target_id, String(edge.metadata.variant_type))).filter((v) => v.ab_status !== 'retired');
    if (left.length === 1 && left[0]!.ab_status === 'testing') await tx.patchEdgeMetadata(left[0]!.id, { ab_status: null }, []);
    return { edge_id: edge.id };
  });
}
