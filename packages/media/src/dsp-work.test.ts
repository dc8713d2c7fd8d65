import { describe, expect, it } from '@jest/globals';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { decodeAudio } from './decode-audio.js';
import { mixSources, type MixSource } from './dsp-work.js';
import { encodeWav } from './wav.js';

// Found attacking the merged result of issue 35 (docs/security.md, "Fifth attack (issue 35)",
// "Found on the merged result"): the mix decoded every channel's source before mixing any, so a
// room of 32 channels on one small upload held 32 decoded copies (4 bytes a sample, outside the
// DSP thread's heap cap): 32 × 2 GB for a 3-hour FLAC of silence, whatever the worker's memory.

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const RATE = 48_000;
const SECONDS = 30;
const CHANNELS = 12;
/** One source's decoded size (Float32). */
const DECODED_BYTES = SECONDS * RATE * 4;

describe('mixSources', () => {
  it('holds one decoded source at a time: twelve channels on one upload cost what one does, not twelve', async () => {
    const wav = encodeWav(Float32Array.from({ length: SECONDS * RATE }, (_, i) => 0.3 * Math.sin((2 * Math.PI * 440 * i) / RATE)), RATE);
    const sources: MixSource[] = Array.from({ length: CHANNELS }, (_, i) => ({ label: `k${i}`, bytes: wav, mime: 'audio/wav', gain_db: -12, offset_ms: 0, effects: {} }));
    gc();
    const before = process.memoryUsage().arrayBuffers;
    const heldAtDecode: number[] = [];
    const decode: typeof decodeAudio = async (...args) => {
      gc();
      heldAtDecode.push(process.memoryUsage().arrayBuffers - before);
      return decodeAudio(...args);
    };
    const result = await mixSources({ kind: 'mix', sources, target_lufs: -16 }, decode);
    expect(result.duration_s).toBeCloseTo(SECONDS, 1);
    expect(heldAtDecode).toHaveLength(CHANNELS);
    // What is held when a source is decoded is the mix's own buffer and the leftovers of a source
    // or two (1–4 sources' worth, measured), the same for the twelfth as for the second: never the
    // eleven decoded before it.
    expect(Math.max(...heldAtDecode)).toBeLessThan(6 * DECODED_BYTES);
    expect(heldAtDecode.at(-1)!).toBeLessThan(6 * DECODED_BYTES);
  });
});
