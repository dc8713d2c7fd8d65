import { AppError } from '@inntak/core';
import { effectiveLevel, meets } from './grants.js';
import type { Actor } from './identity.js';
import type { AccessLevel } from './levels.js';

/**
 * What a store's `levelOn(actor, id)` answers: the node's kind and the actor's level on it as
 * the access matrix holds it; undefined when the node does not exist or the actor may not see it.
 */
export interface WriterLevel {
  nodeKind: string;
  level: AccessLevel | null;
}

/** What the access check reads through a use case's port: packages/postgres answers both in SQL. */
export interface LevelReads {
  /** The node's kind and the actor's level on it; undefined when it does not exist or the actor may not see it. */
  levelOn(actor: Actor, nodeId: string): Promise<WriterLevel | undefined>;
  /** The node's kind, whoever asks; undefined when there is no such node. */
  nodeKindOf(nodeId: string): Promise<string | undefined>;
}

/**
 * The one check of a node an actor wants to write to (the use cases' side of requireLevel): a
 * node the actor may not see answers 404 naming `field` (its existence is not revealed), a
 * visible node without `required` answers 403. Returns the kind and the effective level
 * (a system administrator holds owner everywhere).
 */
export function requireLevelOn(actor: Actor, node: WriterLevel | undefined, required: AccessLevel | null, field: string): WriterLevel {
  if (!node) throw new AppError('not_found', { detail: field });
  const level = effectiveLevel(actor, node.level);
  if (!meets(level, required)) throw new AppError('forbidden');
  return { nodeKind: node.nodeKind, level };
}
