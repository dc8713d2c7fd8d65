import { AppError } from '@inntak/core';
import { requireLevel, type Actor, type EndNeed } from '@inntak/access';
import type { PublishingTx } from './ports.js';

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
