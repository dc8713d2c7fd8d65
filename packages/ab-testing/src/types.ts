/**
 * Glossary.
 * - variant: a `front_page_variant` edge publication → article; what the front page shows for
 *   the article (title, teaser) in place of the article's own title.
 * - variant type: what a variant varies (e.g. `headline`); tests run per (publication, article,
 *   variant type).
 * - ab_status: null while a variant is alone of its type; `testing` once a second one exists;
 *   `winner` / `retired` when the evaluator or an editor has decided (SPEC: States and transitions).
 * - impression: one render of the front page that showed the variant; click: one visit of
 *   `/pub/{slug}/t/{article}?v={variant}`.
 */
export const AB_STATUSES = ['testing', 'winner', 'retired'] as const;
export type AbStatus = (typeof AB_STATUSES)[number];

export function isAbStatus(value: unknown): value is AbStatus {
  return typeof value === 'string' && (AB_STATUSES as readonly string[]).includes(value);
}

export interface VariantCounts {
  id: string;
  impressions: number;
  clicks: number;
}

/** Spec, Limits: the evaluator needs at least this many impressions per variant… */
export const MIN_IMPRESSIONS = 100;
/** …and this significance. */
export const SIGNIFICANCE = 0.05;

/** Click-through rate; 0 for a variant never shown. */
export function ctr(counts: { impressions: number; clicks: number }): number {
  return counts.impressions > 0 ? counts.clicks / counts.impressions : 0;
}
