import { AppError } from '@inntak/core';
import { effectiveLevel, meets, type AccessLevel, type Actor } from '@inntak/access';
import type { MediaTx, NodeLevel } from './ports.js';

/**
 * The actor's level on a node, checked in the transaction that writes: 404 naming `field` when
 * the actor cannot see the node, 403 when the level is below `required` (null: seeing it is enough).
 */
export async function requireLevel(tx: Pick<MediaTx, 'levelOn'>, actor: Actor, nodeId: string, required: AccessLevel | null, field: string): Promise<NodeLevel> {
  const node = await tx.levelOn(actor, nodeId);
  if (!node) throw new AppError('not_found', { detail: field });
  const level = effectiveLevel(actor, node.level);
  if (!meets(level, required)) throw new AppError('forbidden');
  return { ...node, level };
}
