import { AppError } from '@inntak/core';
import { requireSystemAdmin, type Actor, type Caller } from '@inntak/access';
import type { MediaRecord, MediaStore } from './ports.js';
import { MAX_SEGMENTS, type TranscriptSegment } from './transcription.js';
import { requireLevel } from '@inntak/access';
import type { PruneReport } from './prune-run.js';

/**
 * GET /media/{id} with a signed link (docs/media.md "Links a browser can play"): the link's
 * signature stands for a reader's access when it was made, so only the node's existence is
 * checked here; a node deleted since is 404.
 */
export async function readLinkedMedia(store: MediaStore, id: string): Promise<MediaRecord> {
  const media = await store.mediaById(id);
  if (!media) throw new AppError('not_found', { detail: 'id' });
  return media;
}

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

/**
 * GET /media/{id}/transcription: the segments a speech_transcription job stored, to whoever may
 * read the media node in full (404 otherwise, as for its file). `transcribed` is null for media
 * that owes no transcription (images, video, generated speech).
 */
export async function readTranscription(store: MediaStore, caller: Caller, id: string): Promise<{ media_id: string; transcribed: boolean | null; segments: TranscriptSegment[] }> {
  const media = await readMedia(store, caller, id);
  const transcribed = typeof media.metadata.transcribed === 'boolean' ? media.metadata.transcribed : null;
  return { media_id: media.id, transcribed, segments: await store.transcriptionOf(media.id, MAX_SEGMENTS) };
}

/**
 * POST /intentions/transcribe: member on an audio media node (through its owner's access) queues
 * speech_transcription for it; the node owes its transcription until the job has run.
 */
export async function queueTranscription(store: MediaStore, actor: Actor, mediaId: string): Promise<number> {
  return store.transaction(async (tx) => {
    await requireLevel(tx, actor, mediaId, 'member', 'media_id');
    const media = await tx.readableMediaOf(actor, mediaId);
    if (!media) throw new AppError('not_found', { detail: 'media_id' });
    if (media.metadata.media_type !== 'audio') throw new AppError('invalid_input', { detail: `media_id: bare lyd kan skrives av, ikke ${media.metadata.media_type}` });
    return tx.enqueueTranscription({ media_id: mediaId, ...(actor.personId ? { requested_by: actor.personId } : {}) });
  });
}
