import { describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import { AudioOutOfBoundsError } from './audio-bounds.js';
import { decodeAudio, UndecodableAudioError } from './decode-audio.js';
import { encodeWav } from './wav.js';
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
    const { samples, sampleRate } = await decodeAudio(await fixture(name), mime, 60);
    expect(sampleRate).toBe(rate);
    // MP3 and Opus add encoder delay and padding: 1.5 s and at most 0.1 s more.
    expect(samples.length / sampleRate).toBeGreaterThanOrEqual(1.5);
    expect(samples.length / sampleRate).toBeLessThan(1.6);
    expect(peakOf(samples)).toBeGreaterThan(0.05);
    expect(peakOf(samples)).toBeLessThan(1.01);
  });

  it('refuses a broken file and an unknown type, naming them', async () => {
    await expect(decodeAudio(new Uint8Array([0xff, 0xfb, 0x90, 0x00]), 'audio/mpeg', 60)).rejects.toThrow(UndecodableAudioError);
    await expect(decodeAudio(new Uint8Array(100), 'audio/wav', 60)).rejects.toThrow(/^cannot decode audio\/wav: not a PCM WAV file/);
    await expect(decodeAudio(new Uint8Array(100), 'video/mp4', 60)).rejects.toThrow('cannot decode video/mp4: not an audio type the service takes');
  });

  it('reads the header first: a WAV claiming 100 MHz, 9 channels or more than the limit is refused before a sample is decoded (issue 35)', async () => {
    const claiming = (rate: number, channels = 1) => {
      const wav = encodeWav(new Float32Array(6000), 44_100);
      const view = new DataView(wav.buffer);
      view.setUint32(24, rate, true);
      view.setUint16(22, channels, true);
      return wav;
    };
    await expect(decodeAudio(claiming(100_000_000), 'audio/wav', 60)).rejects.toThrow(new AudioOutOfBoundsError('samplingsfrekvensen er 100000000 Hz; den må være fra 8000 til 192000 Hz'));
    await expect(decodeAudio(claiming(4000), 'audio/wav', 60)).rejects.toThrow(AudioOutOfBoundsError);
    await expect(decodeAudio(claiming(44_100, 9), 'audio/wav', 60)).rejects.toThrow('lyden har 9 kanaler; høyst 8');
    await expect(decodeAudio(encodeWav(new Float32Array(8000 * 3), 8000), 'audio/wav', 2)).rejects.toThrow('lyden varer 3 s; høyst 2 s');
    await expect(decodeAudio(await fixture('tone.flac'), 'audio/flac', 1)).rejects.toThrow(AudioOutOfBoundsError);
  });
});
