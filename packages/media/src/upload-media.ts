import { createHash } from 'node:crypto';
import { AppError, uuidv7 } from '@inntak/core';
import type { Actor } from '@inntak/access';
import { placeMediaFile } from './place-media.js';
import type { FileStore, MediaStore, MediaTx } from './ports.js';
import { requireLevel } from '@inntak/access';
import { fileKeyOf, type MediaMetadata } from './types.js';
import { audioOutOfBounds, readAudioHeader } from './audio-bounds.js';
import { InvalidWavError } from './wav.js';
import { probeUpload, sniffUploadType, SNIFF_BYTES, UnreadableMediaError, type SniffedType } from './upload-types.js';

/** Bytes one upload may have, per kind (UPLOAD_MAX_AUDIO_BYTES, …_IMAGE_…, …_VIDEO_…). */
export interface UploadLimits {
  audio: number;
  image: number;
  video: number;
  /** MEDIA_BYTES_PER_COLLECTION. */
  collectionMediaBytes: number;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = { audio: 100 * 2 ** 20, image: 20 * 2 ** 20, video: 200 * 2 ** 20, collectionMediaBytes: 2 ** 30 };
export const COLLECTION_NODE_KIND = 'collection';
const MAX_TITLE_CHARS = 200;

/** The collection an upload goes into: member on it (404 when hidden, 403 below member), and a collection (400). */
async function requireUploadTarget(tx: MediaTx, actor: Actor, collectionId: string): Promise<void> {
  const node = await requireLevel(tx, actor, collectionId, 'member', 'collection_id');
  if (node.node_kind !== COLLECTION_NODE_KIND) throw new AppError('invalid_input', { detail: `collection_id: ${node.node_kind} er ingen samling` });
}

/** Checked before the body is read, so a caller who may not upload sends no bytes for nothing. */
export async function checkUploadTarget(store: MediaStore, actor: Actor, collectionId: string): Promise<void> {
  await store.transaction((tx) => requireUploadTarget(tx, actor, collectionId));
}

/** The type of the first bytes of an upload, or 415. */
export async function uploadTypeOf(head: Uint8Array): Promise<SniffedType> {
  const type = await sniffUploadType(head.subarray(0, SNIFF_BYTES));
  if (!type) throw new AppError('media_type_unsupported', { detail: 'lyd (WAV, MP3, Ogg/Opus, FLAC), bilder (PNG, JPEG, WebP) og video (MP4, WebM) tas imot' });
  return type;
}

/** 413 when `bytes` passes the limit of the type's kind. */
export function requireUploadSize(limits: UploadLimits, type: SniffedType, bytes: number): void {
  const max = limits[type.media_type];
  if (bytes > max) throw new AppError('media_too_large', { detail: `${type.mime} kan være høyst ${max} byte` });
}

export interface UploadResult {
  id: string;
  title: string | null;
  metadata: MediaMetadata;
  /** The speech_transcription job queued for an audio upload. */
  transcription_job_id: number | null;
}

/**
 * One uploaded file into a collection (POST /media, `inntak media add`): its type sniffed from the
 * bytes, its size held to its kind's limit, its metadata read (image size, duration), its sha256
 * kept. Written as text-to-speech writes: temporary name, the row committed (member on the
 * collection and its media quota checked again in that transaction), then renamed into place.
 * Audio arrives untranscribed and gets a speech_transcription job in the same transaction.
 */
export async function uploadMedia(
  deps: { store: MediaStore; files: FileStore; limits: UploadLimits; now?: () => Date },
  actor: Actor,
  input: { collection_id: string; bytes: Uint8Array; title?: string | null },
): Promise<UploadResult> {
  const type = await uploadTypeOf(input.bytes);
  requireUploadSize(deps.limits, type, input.bytes.byteLength);
  let probed;
  try {
    probed = await probeUpload(input.bytes, type);
  } catch (error) {
    if (error instanceof UnreadableMediaError) throw new AppError('media_unreadable', { detail: error.message });
    throw error;
  }
  if (type.media_type === 'audio') {
    // Refused here, where the sender learns why, rather than by every job that would decode it
    // (issue 35): a header claiming 100 MHz froze the mixdown. Length is bounded by the size limit.
    const reason = await audioOutOfBoundsAtUpload(input.bytes, type.mime);
    if (reason) throw new AppError('media_audio_out_of_bounds', { detail: reason });
  }
  const metadata: MediaMetadata = {
    media_type: type.media_type,
    mime: type.mime,
    bytes: input.bytes.byteLength,
    ...probed,
    sha256: createHash('sha256').update(input.bytes).digest('hex'),
    generated: false,
    regenerable: false,
    ...(type.media_type === 'audio' ? { transcribed: false } : {}),
    ...(actor.personId ? { uploaded_by: actor.personId } : {}),
    last_accessed_at: (deps.now ?? (() => new Date()))().toISOString(),
  };
  const title = input.title?.trim().slice(0, MAX_TITLE_CHARS) || null;
  const id = uuidv7();
  let transcriptionJob: number | null = null;
  await placeMediaFile(deps.files, fileKeyOf(id, type.mime), input.bytes, {
    create: () =>
      deps.store.transaction(async (tx) => {
        await requireUploadTarget(tx, actor, input.collection_id);
        const used = await tx.collectionMediaBytes(input.collection_id);
        if (used + input.bytes.byteLength > deps.limits.collectionMediaBytes) {
          throw new AppError('media_quota_exceeded', { detail: `${used + input.bytes.byteLength} byte; høyst ${deps.limits.collectionMediaBytes}` });
        }
        await tx.insertMedia({ id, ownerId: input.collection_id, title, metadata });
        if (type.media_type === 'audio') transcriptionJob = await tx.enqueueTranscription({ media_id: id, ...(actor.personId ? { requested_by: actor.personId } : {}) });
      }),
    delete: () => deps.store.deleteMedia(id),
  });
  return { id, title, metadata, transcription_job_id: transcriptionJob };
}

/**
 * Why the audio's header is out of bounds, if it is. A WAV that is not PCM (ADPCM, µ-law) has no
 * header the jobs read: it is stored as before, and a job that would decode it refuses it.
 */
async function audioOutOfBoundsAtUpload(bytes: Uint8Array, mime: string): Promise<string | undefined> {
  let header;
  try {
    header = await readAudioHeader(bytes, mime);
  } catch (error) {
    if (error instanceof InvalidWavError) return undefined;
    throw error;
  }
  return audioOutOfBounds(header, Number.POSITIVE_INFINITY);
}
