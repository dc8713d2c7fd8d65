import { describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { decodeAudio, UndecodableAudioError } from './decode-audio.js';
import { peakOf } from './dsp.js';

// The upload tests' real files (made with ffmpeg: a 440 Hz sine, 1.5 s): one set for both.
const fixture = async (name: string) => new Uint8Array(await readFile(new URL(`../../../apps/api/src/__tests__/media-fixtures/${name}`, import.meta.url)));

describe('decodeAudio', () => {
  it.each([
    ['tone.wav', 'audio/wav', 8000],
    ['tone.flac', 'audio/flac', 8000],
    ['tone.mp3', 'audio/mpeg', 44_100],
    ['tone.opus', 'audio/ogg', 48_000],
  ])('decodes %s (%s) to mono samples at its own rate, 1.5 s of the tone', async (name, mime, rate) => {
    const { samples, sampleRate } = await decodeAudio(await fixture(name), mime);
    expect(sampleRate).toBe(rate);
    // MP3 and Opus add encoder delay and padding: 1.5 s and at most 0.1 s more.
    expect(samples.length / sampleRate).toBeGreaterThanOrEqual(1.5);
    expect(samples.length / sampleRate).toBeLessThan(1.6);
    expect(peakOf(samples)).toBeGreaterThan(0.05);
    expect(peakOf(samples)).toBeLessThan(1.01);
  });

  it('refuses a broken file and an unknown type, naming them', async () => {
    await expect(decodeAudio(new Uint8Array([0xff, 0xfb, 0x90, 0x00]), 'audio/mpeg')).rejects.toThrow(UndecodableAudioError);
    await expect(decodeAudio(new Uint8Array(100), 'audio/wav')).rejects.toThrow(/^cannot decode audio\/wav: not a PCM WAV file/);
    await expect(decodeAudio(new Uint8Array(100), 'video/mp4')).rejects.toThrow('cannot decode video/mp4: not an audio type the service takes');
  });
});
