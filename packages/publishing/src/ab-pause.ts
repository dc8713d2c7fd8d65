import { AppError } from '@inntak/core';
import { edgeRule, type Actor } from '@inntak/access';
import { requirePublication } from './authorize.js';
import { FRONT_PAGE_VARIANT, type PublishingStore } from './ports.js';

export interface AbTestRef {
  publication_id: string;
  article_id: string;
  variant_type: string;
}

/**
 * pause_ab_test and resume_ab_test (the write policy's change rule of front_page_variant: admin
 * on the publication, as ab_override). A paused test's variants carry `paused` in their
 * metadata: the front page leaves them out, so it shows the article's own title (the control)
 * and no impression or click of the test is counted; the evaluator does not look at it. Resuming
 * counts on in the same round: the paused time adds nothing, so the counts stay comparable.
 * Only a test that is running (variants `testing`) can be paused (409 otherwise).
 */
export function pauseAbTest(store: PublishingStore, actor: Actor, input: AbTestRef): Promise<{ paused: true; variants: string[] }> {
  return setPaused(store, actor, input, true).then((variants) => ({ paused: true as const, variants }));
}

export function resumeAbTest(store: PublishingStore, actor: Actor, input: AbTestRef): Promise<{ paused: false; variants: string[] }> {
  return setPaused(store, actor, input, false).then((variants) => ({ paused: false as const, variants }));
}

function setPaused(store: PublishingStore, actor: Actor, input: AbTestRef, paused: boolean): Promise<string[]> {
  const rule = edgeRule(FRONT_PAGE_VARIANT).change!;
  return store.transaction(async (tx) => {
    await requirePublication(tx, actor, input.publication_id, 'publication_id', rule.source);
    const testing = (await tx.variantsOfType(input.publication_id, input.article_id, input.variant_type)).filter((v) => v.ab_status === 'testing').map((v) => v.id);
    if (testing.length === 0) throw new AppError('conflict', { detail: 'ingen test kjører for denne artikkelen og varianttypen' });
    await tx.setPaused(testing, paused);
    return testing;
  });
}
