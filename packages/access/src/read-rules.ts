import type { GraphNode, Visibility } from '@inntak/graph';

/**
 * Who may read a node (docs/access.md is the prose version; packages/postgres/src/graph/read-filter.ts
 * the SQL one — keep the three in step):
 * - its creator and every subject with an access-matrix row on it read it in full;
 * - `readable` and `open` nodes are read in full by every known caller (`open` is also meant for
 *   anonymous readers of published pages);
 * - `discoverable` nodes are seen by every known caller as a summary only: id, kind, title,
 *   visibility, creator and time — no content, no metadata;
 * - `hidden` nodes are seen by nobody else.
 * A webhook's secret token is shown only to callers with admin or owner access on it.
 */
export type NodeView = 'full' | 'summary';

export const SUMMARY_VISIBILITIES: readonly Visibility[] = ['discoverable'];
export const FULL_VISIBILITIES: readonly Visibility[] = ['readable', 'open'];

export interface ReaderRelation {
  /** The caller created the node. */
  creator: boolean;
  /** The caller's access-matrix level on the node, if any. */
  access: 'reader' | 'member' | 'admin' | 'owner' | null;
}

export function viewOf(visibility: Visibility, relation: ReaderRelation): NodeView | null {
  if (relation.creator || relation.access) return 'full';
  if (FULL_VISIBILITIES.includes(visibility)) return 'full';
  if (SUMMARY_VISIBILITIES.includes(visibility)) return 'summary';
  return null;
}

/** The node as this caller may see it, or null when they may not see it at all. */
export function nodeForReader<T extends GraphNode>(node: T, relation: ReaderRelation): T | null {
  const view = viewOf(node.visibility, relation);
  if (!view) return null;
  if (view === 'summary') return { ...node, content: null, metadata: {} };
  if (node.node_kind === 'webhook' && 'token' in node.metadata && !canAdminister(relation)) {
    const { token: _token, ...metadata } = node.metadata;
    return { ...node, metadata };
  }
  return node;
}

/** Admin and owner access reveal a webhook's token (and, on the stream, who else has access). */
export function canAdminister(relation: ReaderRelation): boolean {
  return relation.access === 'admin' || relation.access === 'owner';
}
