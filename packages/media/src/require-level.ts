import { requireLevelOn, type AccessLevel, type Actor, type WriterLevel } from '@inntak/access';
import type { MediaTx } from './ports.js';

/** requireLevelOn (packages/access) through the media port: 404 naming `field` when hidden, 403 below `required`. */
export async function requireLevel(tx: Pick<MediaTx, 'levelOn'>, actor: Actor, nodeId: string, required: AccessLevel | null, field: string): Promise<WriterLevel> {
  return requireLevelOn(actor, await tx.levelOn(actor, nodeId), required, field);
}
