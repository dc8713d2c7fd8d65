import type { FileStore } from './ports.js';
import { readWhole } from './read-whole.js';
import { fileKeyOf, type MediaMetadata, type TranscriptSegment } from './types.js';
import { DspThreadError, runInDspThread } from './dsp-client.js';
import { RefusedAudioError } from './dsp-work.js';

/** One stretch of recognised speech (kept in types.ts, where the ports read it). */
export type { TranscriptSegment } from './types.js';

/**
 * The speech recognizer port: an offline engine that turns mono samples at its own rate into
 * segments. The production adapter (PocketSphinx, apps/worker) loads its model from
 * TRANSCRIPTION_MODEL_DIR; nothing is downloaded at run time.
 */
export interface SpeechRecognizer {
  /** The rate the engine's model wants; the job resamples to it. */
  readonly sampleRate: number;
  /** A name for the metadata (engine and model). */
  readonly name: string;
  /** Rejects with signal.reason once the signal aborts. */
  recognize(samples: Float32Array, options: { signal?: AbortSignal }): Promise<TranscriptSegment[]>;
}

/** What speech_transcription needs of the database (packages/postgres/src/media). */
export interface TranscriptionCatalog {
  media(id: string): Promise<{ id: string; metadata: MediaMetadata } | undefined>;
  /** Replaces the node's segments and sets transcribed, in one transaction; `beforeCommit` runs inside it. */
  saveTranscription(id: string, segments: readonly TranscriptSegment[], facts: { engine: string; at: string }, beforeCommit: () => void): Promise<void>;
}

/** A transcription no retry can make (no such node, not audio, a format the job cannot read). */
export class TranscriptionError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'TranscriptionError';
  }
}

/** Segments one node keeps at most, and characters one segment keeps: what a reader gets is bounded. */
export const MAX_SEGMENTS = 10_000;
export const MAX_SEGMENT_CHARS = 2000;
/** Audio one job transcribes at most (held in memory as 32-bit samples). */
export const MAX_TRANSCRIPTION_SECONDS = 4 * 3600;

/**
 * Transcribes an audio media node: its audio (WAV, MP3, Ogg/Opus, FLAC) decoded, resampled to the engine's rate, recognised,
 * and the segments stored with `transcribed: true` in one transaction (the signal checked inside
 * it). Until then the node keeps its longer, untranscribed lifetime (pruning.ts).
 */
export async function transcribeMedia(
  deps: { catalog: TranscriptionCatalog; files: FileStore; recognizer: SpeechRecognizer; now?: () => Date },
  mediaId: string,
  signal: AbortSignal,
): Promise<{ segments: number; words: number; duration_s: number }> {
  const media = await deps.catalog.media(mediaId);
  if (!media) throw new TranscriptionError(`media ${mediaId} does not exist`);
  const { media_type, mime } = media.metadata;
  if (media_type !== 'audio') throw new TranscriptionError(`media ${mediaId} is ${media_type}, not audio`);
  // The header is checked before anything is decoded (its length among it: it used to be checked
  // after decoding), and the decoding and resampling run in a thread, off the event loop (issue 35).
  let speech;
  try {
    speech = await runInDspThread({ kind: 'speech', bytes: await readWhole(deps.files, fileKeyOf(media.id, mime)), mime, rate: deps.recognizer.sampleRate, max_seconds: MAX_TRANSCRIPTION_SECONDS }, signal);
  } catch (error) {
    if (error instanceof RefusedAudioError || error instanceof DspThreadError) throw new TranscriptionError(`media ${mediaId}: ${error.message}`);
    throw error;
  }
  const { samples, duration_s: duration } = speech;
  signal.throwIfAborted();
  const segments = (await deps.recognizer.recognize(samples, { signal }))
    .map((s) => ({ start_s: Math.max(0, s.start_s), end_s: Math.max(s.start_s, s.end_s), text: s.text.trim().slice(0, MAX_SEGMENT_CHARS) }))
    .filter((s) => s.text !== '')
    .slice(0, MAX_SEGMENTS);
  const at = (deps.now ?? (() => new Date()))().toISOString();
  await deps.catalog.saveTranscription(media.id, segments, { engine: deps.recognizer.name, at }, () => signal.throwIfAborted());
  return { segments: segments.length, words: segments.reduce((n, s) => n + s.text.split(/\s+/).length, 0), duration_s: duration };
}

/** Word error rate of `hypothesis` against `reference`: word-level edit distance over reference words. */
export function wordErrorRate(reference: string, hypothesis: string): number {
  const words = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, ' ').split(/\s+/).filter(Boolean);
  const ref = words(reference);
  const hyp = words(hypothesis);
  if (ref.length === 0) return hyp.length === 0 ? 0 : 1;
  let previous = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const row = [i];
    for (let j = 1; j <= hyp.length; j++) row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    previous = row;
  }
  return previous[hyp.length]! / ref.length;
}
