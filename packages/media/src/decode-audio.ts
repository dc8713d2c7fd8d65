import { FLACDecoder } from '@wasm-audio-decoders/flac';
import { MPEGDecoder } from 'mpg123-decoder';
import { OggOpusDecoder } from 'ogg-opus-decoder';
import { audioOutOfBounds, AudioOutOfBoundsError, readAudioHeader } from './audio-bounds.js';
import { decodeWav, InvalidWavError } from './wav.js';

/** An audio file the mixdown or transcription cannot decode (a broken file, an unknown mime). */
export class UndecodableAudioError extends Error {
  constructor(mime: string, reason: string) {
    super(`cannot decode ${mime}: ${reason}`);
    this.name = 'UndecodableAudioError';
  }
}

interface Decoded {
  channelData: Float32Array[];
  samplesDecoded: number;
  sampleRate: number;
  errors: Array<{ message: string }>;
}

interface StreamDecoder {
  ready: Promise<void>;
  free(): void;
  decode(chunk: Uint8Array): Decoded | Promise<Decoded>;
  flush?(): Promise<Decoded>;
}

/**
 * A compressed file's input is fed in pieces this large, and what came out is counted after each:
 * a file whose header under-states its length is stopped at the job's limit, not decoded whole.
 */
const CHUNK_BYTES = 16 * 1024;

/** The channels averaged to one, appended to `out`; how many samples. */
function addMono(decoded: Decoded, out: Float32Array[]): number {
  const channels = decoded.channelData.filter((c) => c.length > 0);
  if (channels.length === 0 || decoded.samplesDecoded === 0) return 0;
  const mono = new Float32Array(decoded.samplesDecoded);
  for (const channel of channels) for (let i = 0; i < mono.length; i++) mono[i] = mono[i]! + channel[i]! / channels.length;
  out.push(mono);
  return mono.length;
}

/** One of the eshaz WebAssembly decoders, fed in CHUNK_BYTES pieces up to `maxSeconds` of output, freed when done. */
async function viaWasm(mime: string, bytes: Uint8Array, maxSeconds: number, make: () => StreamDecoder) {
  const decoder = make();
  try {
    await decoder.ready;
    const pieces: Float32Array[] = [];
    let total = 0;
    let sampleRate = 0;
    let firstError: string | undefined;
    const take = (decoded: Decoded) => {
      if (decoded.samplesDecoded === 0) {
        firstError ??= decoded.errors[0]?.message;
        return;
      }
      sampleRate ||= decoded.sampleRate;
      const reason = audioOutOfBounds({ sampleRate: decoded.sampleRate, channels: decoded.channelData.length, durationS: 0 }, maxSeconds);
      if (reason) throw new AudioOutOfBoundsError(reason);
      total += addMono(decoded, pieces);
      if (total > maxSeconds * sampleRate) throw new AudioOutOfBoundsError(`lyden varer mer enn ${maxSeconds} s`);
    };
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES) take(await decoder.decode(bytes.subarray(at, at + CHUNK_BYTES)));
    if (decoder.flush) take(await decoder.flush());
    if (total === 0) throw new UndecodableAudioError(mime, firstError ?? 'no samples');
    const samples = new Float32Array(total);
    let at = 0;
    for (const piece of pieces) {
      samples.set(piece, at);
      at += piece.length;
    }
    return { samples, sampleRate };
  } finally {
    decoder.free();
  }
}

/**
 * Any audio an upload may be (WAV, MP3, Ogg/Opus, FLAC) as mono Float32 samples, for the mixdown
 * and transcription. Its header is read and checked first (AUDIO_BOUNDS and `maxSeconds`:
 * AudioOutOfBoundsError), so nothing is decoded for a file that claims 100 MHz or three days;
 * compressed formats are then decoded piece by piece and stopped at `maxSeconds` whatever their
 * header said. They go through WebAssembly builds of mpg123, libFLAC and libopus (no native code).
 */
export async function decodeAudio(bytes: Uint8Array, mime: string, maxSeconds: number): Promise<{ samples: Float32Array; sampleRate: number }> {
  if (!['audio/wav', 'audio/mpeg', 'audio/flac', 'audio/ogg'].includes(mime)) throw new UndecodableAudioError(mime, 'not an audio type the service takes');
  try {
    const reason = audioOutOfBounds(await readAudioHeader(bytes, mime), maxSeconds);
    if (reason) throw new AudioOutOfBoundsError(reason);
  } catch (error) {
    if (error instanceof AudioOutOfBoundsError) throw error;
    throw new UndecodableAudioError(mime, error instanceof Error ? error.message : String(error));
  }
  switch (mime) {
    case 'audio/wav':
      try {
        return decodeWav(bytes);
      } catch (error) {
        if (error instanceof InvalidWavError) throw new UndecodableAudioError(mime, error.message);
        throw error;
      }
    case 'audio/mpeg':
      return viaWasm(mime, bytes, maxSeconds, () => new MPEGDecoder() as never);
    case 'audio/flac':
      return viaWasm(mime, bytes, maxSeconds, () => new FLACDecoder() as never);
    case 'audio/ogg':
      return viaWasm(mime, bytes, maxSeconds, () => new OggOpusDecoder() as never);
    default:
      throw new UndecodableAudioError(mime, 'not an audio type the service takes');
  }
}
