import { textProblem } from './limits.js';
import type { JsonObject } from './types.js';

/**
 * Tags and traits: the one definition every subsystem uses (orchestration's `has_tag` and
 * `has_trait` conditions, publishing's category pages). See docs/graph.md.
 *
 * - A tag is a node of kind `tag` whose `metadata.tag` is its normalized name; there is one
 *   such node per name. A node has tag T when a `tagged` edge goes from the node to T's node.
 * - A trait is a plain string in the node's own `metadata.traits` array: a property of the node
 *   set by whoever writes it, not a shared object.
 */
export const TAG_NODE_KIND = 'tag';
export const TAGGED_EDGE_TYPE = 'tagged';
export const TAG_MAX_LENGTH = 64;

/**
 * Trimmed, inner whitespace collapsed to one space, lower-cased (locale-independent). Returns
 * null for a name that is empty afterwards, longer than TAG_MAX_LENGTH, or holds a control
 * character, a lone surrogate or `/` (tags appear in page paths).
 */
export function normalizeTag(raw: string): string | null {
  const tag = raw.trim().replace(/\s+/g, ' ').toLowerCase();
  if (tag.length === 0 || tag.length > TAG_MAX_LENGTH) return null;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f/]/.test(tag)) return null;
  // A lone surrogate is valid JSON but not storable text: refused here, not a 500 at insert.
  if (textProblem(tag) !== null) return null;
  return tag;
}

/** The node's traits: the strings in `metadata.traits` (anything else there is ignored). */
export function nodeTraits(metadata: JsonObject): string[] {
  const traits = metadata.traits;
  return Array.isArray(traits) ? traits.filter((t): t is string => typeof t === 'string') : [];
}
