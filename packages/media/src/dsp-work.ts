import { AudioOutOfBoundsError, audioOutOfBounds, readAudioHeader } from './audio-bounds.js';
import { decodeAudio, UndecodableAudioError } from './decode-audio.js';
import { resample } from './dsp.js';
import type { ChannelEffects } from './mix-effects.js';
import { MixBuffer, MIX_MAX_SECONDS, normaliseMix, NothingToMixError } from './mixdown.js';
import { encodeWav } from './wav.js';

/**
 * The decoding and DSP of the mixdown and transcription, as plain functions of bytes: the DSP
 * thread (dsp-thread.ts) runs them off the worker's event loop (dsp-client.ts).
 */

export interface MixSource {
  /** Names the channel in an error. */
  label: string;
  bytes: Uint8Array;
  mime: string;
  gain_db: number;
  offset_ms: number;
  effects: ChannelEffects;
}

export interface MixRequest {
  kind: 'mix';
  sources: MixSource[];
  target_lufs: number;
}

export interface MixResult {
  wav: Uint8Array;
  sample_rate: number;
  duration_s: number;
  loudness_lufs: number;
  peak_dbfs: number;
}

export interface SpeechRequest {
  kind: 'speech';
  bytes: Uint8Array;
  mime: string;
  /** The recognizer's rate. */
  rate: number;
  max_seconds: number;
}

/** Thrown for input no retry can change: out of bounds, undecodable, nothing to mix. */
export class RefusedAudioError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RefusedAudioError';
  }
}

const refusal = (prefix: string, error: unknown) =>
  error instanceof AudioOutOfBoundsError || error instanceof UndecodableAudioError ? new RefusedAudioError(`${prefix}${(error as Error).message}`) : error;

/**
 * Every source's header first (AUDIO_BOUNDS, each at most MIX_MAX_SECONDS) and the mix's length
 * from them (the latest end, at most MIX_MAX_SECONDS), before a sample is decoded; then each
 * source decoded and added to the mix at MIX_SAMPLE_RATE in turn, one at a time (a room of 32
 * channels on one upload held 32 decoded copies: found attacking the merged result of issue 35),
 * and the mix made a 16-bit WAV. `decode` is decodeAudio (a test watches it).
 */
export async function mixSources(request: MixRequest, decode: typeof decodeAudio = decodeAudio): Promise<MixResult> {
  let end = 0;
  for (const source of request.sources) {
    try {
      const header = await readAudioHeader(source.bytes, source.mime);
      const reason = audioOutOfBounds(header, MIX_MAX_SECONDS);
      if (reason) throw new AudioOutOfBoundsError(reason);
      end = Math.max(end, source.offset_ms / 1000 + header.durationS);
    } catch (error) {
      if (error instanceof AudioOutOfBoundsError) throw refusal(`channel ${source.label}: `, error);
      throw new RefusedAudioError(`channel ${source.label}: cannot decode ${source.mime}: ${(error as Error).message}`);
    }
  }
  if (end > MIX_MAX_SECONDS) throw new RefusedAudioError(`the mix would last ${Math.round(end)} s; at most ${MIX_MAX_SECONDS} s`);
  if (request.sources.length === 0) throw new RefusedAudioError('every channel with a source is muted');
  let mix;
  try {
    const buffer = new MixBuffer(end);
    for (const source of request.sources) {
      let decoded;
      try {
        decoded = await decode(source.bytes, source.mime, MIX_MAX_SECONDS);
      } catch (error) {
        throw refusal(`channel ${source.label}: `, error);
      }
      buffer.add({ ...decoded, gain_db: source.gain_db, muted: false, offset_ms: source.offset_ms, effects: source.effects });
    }
    mix = normaliseMix(buffer.result(), request.target_lufs);
  } catch (error) {
    if (error instanceof NothingToMixError) throw new RefusedAudioError(error.message);
    throw error;
  }
  return { wav: encodeWav(mix.samples, mix.sampleRate), sample_rate: mix.sampleRate, duration_s: mix.duration_s, loudness_lufs: mix.loudness_lufs, peak_dbfs: mix.peak_dbfs };
}

/** The audio decoded (header checked first, at most `max_seconds`) and resampled to the recognizer's rate. */
export async function speechSamples(request: SpeechRequest): Promise<{ samples: Float32Array; duration_s: number }> {
  let decoded;
  try {
    decoded = await decodeAudio(request.bytes, request.mime, request.max_seconds);
  } catch (error) {
    throw refusal('', error);
  }
  return { samples: resample(decoded.samples, decoded.sampleRate, request.rate), duration_s: decoded.samples.length / decoded.sampleRate };
}
