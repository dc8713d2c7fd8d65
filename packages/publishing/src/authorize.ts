import { AppError } from '@inntak/core';
import { endNeed, requireLevelOn, type AccessLevel, type Actor, type EndNeed, type WriterLevel } from '@inntak/access';
import type { PublishingTx } from './ports.js';

/** requireLevel through the port: 404 naming `field` for a node the actor cannot see, 403 below `required`. */
export async function requireLevel(tx: PublishingTx, actor: Actor, nodeId: string, required: AccessLevel | null, field: string): Promise<WriterLevel> {
  return requireLevelOn(actor, await tx.levelOn(actor, nodeId), required, field);
}

/**
 * One end of an edge: `exists` only has to exist; otherwise the write policy's need, raised by
 * the node's kind (endNeed). Returns the actor's level (null when only existence was needed).
 */
export async function requireEnd(tx: PublishingTx, actor: Actor, nodeId: string, need: EndNeed, field: string): Promise<AccessLevel | null> {
  const kind = await tx.nodeKindOf(nodeId);
  if (kind === undefined) throw new AppError('not_found', { detail: field });
  const raised = endNeed(need, kind);
  if (raised === 'exists') return null;
  return (await requireLevel(tx, actor, nodeId, raised, field)).level;
}

/**
 * A publication a caller wants to change: through the access matrix (404 when they may not see
 * it, 403 without `level`, the write policy's need on it), and a collection that is a
 * publication (else 400). Locks its row so the variant transitions of one publication happen one
 * at a time.
 */
export async function requirePublication(tx: PublishingTx, actor: Actor, publicationId: string, field: string, level: EndNeed = 'admin'): Promise<void> {
  await requireLevel(tx, actor, publicationId, level === 'exists' ? null : level, field);
  if (!(await tx.lockPublication(publicationId))) throw new AppError('invalid_input', { detail: `${field}: er ikke en publikasjon` });
}
