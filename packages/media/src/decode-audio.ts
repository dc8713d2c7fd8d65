import { FLACDecoder } from '@wasm-audio-decoders/flac';
import { MPEGDecoder } from 'mpg123-decoder';
import { OggOpusDecoder } from 'ogg-opus-decoder';
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

/** The channels averaged to one. */
function mono(decoded: Decoded): Float32Array {
  const channels = decoded.channelData.filter((c) => c.length > 0);
  if (channels.length <= 1) return channels[0] ?? new Float32Array(0);
  const out = new Float32Array(decoded.samplesDecoded);
  for (const channel of channels) for (let i = 0; i < out.length; i++) out[i] = out[i]! + channel[i]! / channels.length;
  return out;
}

/** One of the eshaz WebAssembly decoders, freed when done. */
async function viaWasm(mime: string, bytes: Uint8Array, make: () => { ready: Promise<void>; free(): void; decode(b: Uint8Array): Decoded | Promise<Decoded> }) {
  const decoder = make();
  try {
    await decoder.ready;
    const decoded = await decoder.decode(bytes);
    if (decoded.samplesDecoded === 0) throw new UndecodableAudioError(mime, decoded.errors[0]?.message ?? 'no samples');
    return { samples: mono(decoded), sampleRate: decoded.sampleRate };
  } finally {
    decoder.free();
  }
}

/**
 * Any audio an upload may be (WAV, MP3, Ogg/Opus, FLAC) as mono Float32 samples, for the mixdown
 * and transcription. The compressed formats go through WebAssembly builds of mpg123, libFLAC
 * and libopus (no native code, no system install).
 */
export async function decodeAudio(bytes: Uint8Array, mime: string): Promise<{ samples: Float32Array; sampleRate: number }> {
  switch (mime) {
    case 'audio/wav':
      try {
        return decodeWav(bytes);
      } catch (error) {
        if (error instanceof InvalidWavError) throw new UndecodableAudioError(mime, error.message);
        throw error;
      }
    case 'audio/mpeg':
      return viaWasm(mime, bytes, () => new MPEGDecoder() as never);
    case 'audio/flac': {
      return viaWasm(mime, bytes, () => {
        const d = new FLACDecoder();
        return { ready: d.ready, free: () => d.free(), decode: (b: Uint8Array) => d.decodeFile(b) as Promise<Decoded> };
      });
    }
    case 'audio/ogg': {
      return viaWasm(mime, bytes, () => {
        const d = new OggOpusDecoder();
        return { ready: d.ready, free: () => d.free(), decode: (b: Uint8Array) => d.decodeFile(b) as Promise<Decoded> };
      });
    }
    default:
      throw new UndecodableAudioError(mime, 'not an audio type the service takes');
  }
}
