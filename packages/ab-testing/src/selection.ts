import type { AbStatus } from './types.js';

export interface SelectableVariant {
  id: string;
  variantType: string;
  abStatus: AbStatus | null;
}

/**
 * The variant a front-page render shows for one article (SPEC: variant selection): per variant
 * type, a `winner` if there is one, otherwise a random one among those still in play (`testing`,
 * or a lone variant without a status); never a `retired` one. When an article has variants of
 * several types, one of the types that has a candidate is picked at random, so each running test
 * gets impressions. Undefined when nothing is selectable (the article's own title is shown).
 */
export function selectVariant<V extends SelectableVariant>(variants: readonly V[], random: () => number = Math.random): V | undefined {
  const byType = new Map<string, V[]>();
  for (const variant of variants) {
    if (variant.abStatus === 'retired') continue;
    const group = byType.get(variant.variantType);
    if (group) group.push(variant);
    else byType.set(variant.variantType, [variant]);
  }
  const types = [...byType.keys()].sort();
  if (types.length === 0) return undefined;
  const candidates = byType.get(pick(types, random))!;
  const winner = candidates.find((v) => v.abStatus === 'winner');
  return winner ?? pick(candidates, random);
}

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.min(items.length - 1, Math.floor(random() * items.length))]!;
}
