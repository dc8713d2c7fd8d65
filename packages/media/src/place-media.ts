import { AppError } from '@inntak/core';
import type { FileStore } from './ports.js';

/** The disk (or a quota) is full: the caller hears 507, not 500 (issue 38). */
function storageFull(err: unknown): never {
  const code = (err as { code?: unknown }).code;
  if (code === 'ENOSPC' || code === 'EDQUOT') throw new AppError('storage_full', { cause: err, message: `STORAGE_DIR is full: ${(err as Error).message}` });
  throw err;
}

/**
 * Files and rows never disagree (docs/media.md): the bytes go to a temporary name, the row is
 * committed by `createRow`, then the file is renamed into place. A failed commit discards the
 * temporary file; a failed rename deletes the row again, then the temporary file.
 */
export async function placeMediaFile(
  files: FileStore,
  key: string,
  bytes: Uint8Array,
  row: { create: () => Promise<unknown>; delete: () => Promise<void> },
): Promise<void> {
  const tempName = await files.writeTemp(key, bytes).catch(storageFull);
  try {
    await row.create();
  } catch (error) {
    await files.discard(tempName);
    throw error;
  }
  try {
    await files.commit(tempName, key);
  } catch (error) {
    await row.delete();
    await files.discard(tempName);
    throw error;
  }
}
