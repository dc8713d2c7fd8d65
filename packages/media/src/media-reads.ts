import { AppError } from '@inntak/core';
import { requireSystemAdmin, type Actor, type Caller } from '@inntak/access';
import type { MediaRecord, MediaStore } from './ports.js';
import type { PruneReport } from './prune-run.js';

/**
 * GET /media/{id}: the media node when the caller may read it in full (the file is the node's
 * content, so a discoverable summary does not reach it); 404 otherwise, naming no reason.
 */
export async function readMedia(store: MediaStore, caller: Caller, id: string): Promise<MediaRecord> {
  const media = await store.readableMedia(caller.personId, id);
  if (!media) throw new AppError('not_found', { detail: 'id' });
  return media;
}

/** The last pruning run (GET /admin/resources): system administrators only. */
export async function latestPruneRun(store: MediaStore, actor: Actor): Promise<PruneReport | null> {
  requireSystemAdmin(actor);
  return store.latestPruneRun();
}
