import { uuidv7 } from '@inntak/core';
import type { OrchestrationCascade } from '@inntak/jobs';
import { concatWav, parseWav } from './wav.js';
import { placeMediaFile } from './place-media.js';
import { speechTextOf, splitForSpeech } from './speech-text.js';
import type { FileStore, MediaCreateTx, SpeechSynthesizer } from './ports.js';
import { fileKeyOf, type MediaMetadata } from './types.js';
import { DEFAULT_SPEECH_LIMITS, SpeechLimitError, speechRefusal, type SpeechLimits } from './speech-limits.js';

/** What speech generation needs of the database (packages/postgres/src/media). */
export interface SpeechCatalog {
  /** The node to read aloud, or undefined when it does not exist. */
  source(nodeId: string): Promise<{ id: string; title: string | null; content: string | null } | undefined>;
  /**
   * Creates the media node and its edges in one transaction: `check` runs first in it (throwing
   * rolls back), `beforeCommit` last.
   */
  createMedia(input: { id: string; ownerId: string; title: string | null; metadata: MediaMetadata; cascade?: OrchestrationCascade; check?: (tx: MediaCreateTx) => Promise<void>; beforeCommit: () => void }): Promise<{ id: string }>;
  deleteMedia(id: string): Promise<void>;
  /** Bytes of media in the node's fullest collection (the node itself when it belongs to none). */
  collectionMediaBytes(nodeId: string): Promise<number>;
}

export interface SpeechRequest {
  node_id: string;
  voice: string;
  rate: number;
  /** The job's history id, kept in the metadata so `inntak tts` finds what its job made. */
  jobId?: number;
  /** The orchestration run that queued the job: the media node is an event of its cascade. */
  cascade?: OrchestrationCascade;
}

/** The node a media node was to belong to is gone (createMedia rejects with it): no retry brings it back. */
export class MediaOwnerGoneError extends Error {
  constructor(readonly ownerId: string) {
    super(`node ${ownerId} does not exist`);
    this.name = 'MediaOwnerGoneError';
  }
}

export class NothingToSayError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'NothingToSayError';
  }
}

/**
 * Reads a node's title and content aloud into a media node (audio/wav, generated and
 * regenerable) owned by the node. Long texts are synthesized in pieces and joined; the signal is
 * checked between pieces and once more inside the transaction before it commits, so a cancelled
 * job leaves neither node nor file. The file goes in place only after the commit.
 */
export async function generateSpeech(
  deps: { catalog: SpeechCatalog; files: FileStore; synthesizer: SpeechSynthesizer; limits?: SpeechLimits; now?: () => Date },
  request: SpeechRequest,
  signal: AbortSignal,
): Promise<{ media_id: string; bytes: number; duration_s: number; pieces: number }> {
  const source = await deps.catalog.source(request.node_id);
  if (!source) throw new NothingToSayError(`node ${request.node_id} does not exist`);
  const text = speechTextOf(source);
  if (text === '') throw new NothingToSayError(`node ${request.node_id} has no title or content to read`);
  // What the API refused in advance is checked again: the text may have grown since, and an
  // orchestration queues jobs without the API.
  const limits = deps.limits ?? DEFAULT_SPEECH_LIMITS;
  const used = await deps.catalog.collectionMediaBytes(source.id);
  const refusal = speechRefusal(limits, text.length, request.rate, used);
  if (refusal) throw new SpeechLimitError(refusal);
  const pieces = splitForSpeech(text);
  const audio: Uint8Array[] = [];
  let seconds = 0;
  let bytes = 0;
  for (const piece of pieces) {
    signal.throwIfAborted();
    const wavPiece = await deps.synthesizer.synthesize(piece, { voice: request.voice, rate: request.rate, signal });
    // The estimate is an estimate: what the engine really makes is counted as it comes.
    seconds += parseWav(wavPiece).durationS;
    bytes += wavPiece.byteLength;
    if (seconds > limits.maxAudioSeconds) throw new SpeechLimitError({ limit: 'audio', seconds: Math.ceil(seconds), max: limits.maxAudioSeconds });
    if (used + bytes > limits.collectionMediaBytes) throw new SpeechLimitError({ limit: 'collection_bytes', bytes: used + bytes, max: limits.collectionMediaBytes });
    audio.push(wavPiece);
  }
  signal.throwIfAborted();
  const wav = pieces.length === 1 ? audio[0]! : concatWav(audio);
  const info = parseWav(wav);
  const mime = 'audio/wav';
  const now = (deps.now ?? (() => new Date()))();
  const metadata: MediaMetadata = {
    media_type: 'audio',
    mime,
    bytes: wav.byteLength,
    duration_s: Math.round(info.durationS * 1000) / 1000,
    generated: true,
    regenerable: true,
    source_node_id: source.id,
    last_accessed_at: now.toISOString(),
    voice: request.voice,
    rate: request.rate,
    ...(request.jobId !== undefined ? { job_id: request.jobId } : {}),
  };
  // The id is drawn here so the file can be written under its key before the transaction;
  // file I/O inside it would hold the transaction open for the length of a disk write.
  const id = uuidv7();
  const key = fileKeyOf(id, mime);
  signal.throwIfAborted();
  await placeMediaFile(deps.files, key, wav, {
    create: () =>
      deps.catalog.createMedia({
        id,
        ownerId: source.id,
        title: source.title ? `Opplesning: ${source.title}` : 'Opplesning',
        metadata,
        ...(request.cascade ? { cascade: request.cascade } : {}),
        // The check above ran before synthesis, outside any lock: two jobs (or an upload) finishing
        // together both passed it. Here it runs again under the scopes' lock, held to commit.
        check: async (tx) => {
          const usedNow = await tx.collectionMediaBytes(source.id);
          if (usedNow + wav.byteLength > limits.collectionMediaBytes) {
            throw new SpeechLimitError({ limit: 'collection_bytes', bytes: usedNow + wav.byteLength, max: limits.collectionMediaBytes });
          }
        },
        beforeCommit: () => signal.throwIfAborted(),
      }),
    delete: () => deps.catalog.deleteMedia(id),
  });
  return { media_id: id, bytes: wav.byteLength, duration_s: metadata.duration_s!, pieces: pieces.length };
}
