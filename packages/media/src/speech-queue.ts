import { AppError } from '@inntak/core';
import type { Actor } from '@inntak/access';
import type { JobPayloads } from '@inntak/jobs';
import type { MediaStore, MediaTx } from './ports.js';
import { DEFAULT_RATE } from './ports.js';
import { requireLevel } from '@inntak/access';
import { speechRefusal, type SpeechLimits } from './speech-limits.js';
import { speechTextOf } from './speech-text.js';

export interface SpeechQueueLimits extends SpeechLimits {
  /** tts_generate jobs one person may have queued or running at once. */
  jobsPerPerson: number;
}

export interface SpeechQueueRequest {
  node_id: string;
  voice?: string;
  rate?: number;
}

/** The part of a transaction the per-person TTS job limit needs (MediaTx, OrchestrationTx). */
export type SpeechRoomTx = Pick<MediaTx, 'lockSpeechQueueOf' | 'speechJobsOf'>;

/**
 * Refuses (tts_jobs_busy) a person who has `jobsPerPerson` tts_generate jobs queued or running
 * already, whether they asked through the API or their orchestration's generate_tts did (second
 * attack on issue 22). Takes the person's lock, held to the end of the transaction, which must
 * then queue the job with `requested_by` = the person, so parallel requests cannot all slip under.
 */
export async function requireSpeechRoom(tx: SpeechRoomTx, personId: string, jobsPerPerson: number): Promise<void> {
  await tx.lockSpeechQueueOf(personId);
  if ((await tx.speechJobsOf(personId)) >= jobsPerPerson) throw new AppError('tts_jobs_busy', { detail: `høyst ${jobsPerPerson} om gangen` });
}

/**
 * `POST /intentions/generate_tts` (docs/media.md, issue 22): the speech becomes part of the node
 * (its media), so it takes member on the node, like the orchestration action; and it is refused
 * in advance when the text, the estimated audio, the person's queued jobs or the collection's
 * media would pass their limit. The count and the enqueue happen under a per-person lock, so
 * parallel requests cannot all slip under the job limit.
 */
export async function queueSpeech(
  store: MediaStore,
  actor: Actor & { personId: string },
  request: SpeechQueueRequest,
  limits: SpeechQueueLimits,
  options: { maxAttempts: number },
): Promise<number> {
  return store.transaction(async (tx) => {
    await requireLevel(tx, actor, request.node_id, 'member', 'node_id');
    const node = await tx.speechSource(request.node_id);
    if (!node) throw new AppError('not_found', { detail: 'node_id' });
    const chars = speechTextOf(node).length;
    const refusal = speechRefusal(limits, chars, request.rate ?? DEFAULT_RATE, await tx.collectionMediaBytes(request.node_id));
    if (refusal?.limit === 'text') throw new AppError('tts_text_too_long', { detail: `${refusal.chars} tegn; høyst ${refusal.max}` });
    if (refusal?.limit === 'audio') throw new AppError('tts_audio_too_long', { detail: `om lag ${refusal.seconds} s; høyst ${refusal.max} s` });
    if (refusal?.limit === 'collection_bytes') throw new AppError('media_quota_exceeded', { detail: `${refusal.bytes} byte; høyst ${refusal.max}` });
    await requireSpeechRoom(tx, actor.personId, limits.jobsPerPerson);
    const payload: JobPayloads['tts_generate'] = {
      node_id: request.node_id,
      ...(request.voice ? { voice: request.voice } : {}),
      ...(request.rate ? { rate: request.rate } : {}),
      requested_by: actor.personId,
    };
    return tx.enqueueSpeech(payload, options);
  });
}
