import { describe, expect, it } from '@jest/globals';
import { concatWav, InvalidWavError, parseWav } from './wav.js';

function pcm(samples: number, sampleRate = 22050): Uint8Array {
  const out = new Uint8Array(44 + samples * 2);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode('RIFF'), 0);
  view.setUint32(4, 36 + samples * 2, true);
  out.set(new TextEncoder().encode('WAVEfmt '), 8);
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  out.set(new TextEncoder().encode('data'), 36);
  view.setUint32(40, samples * 2, true);
  for (let i = 0; i < samples; i++) view.setInt16(44 + i * 2, i % 100, true);
  return out;
}

describe('WAV', () => {
  it('measures a PCM file: rate, channels, bits and duration', () => {
    expect(parseWav(pcm(22050))).toMatchObject({ sampleRate: 22050, channels: 1, bitsPerSample: 16, dataBytes: 44100, durationS: 1 });
  });

  it('joins pieces into one file whose samples are the pieces in order', () => {
    const a = pcm(1000);
    const b = pcm(500);
    const joined = concatWav([a, b]);
    const info = parseWav(joined);
    expect(info.dataBytes).toBe(3000);
    expect(joined.subarray(44, 2044)).toEqual(a.subarray(44));
    expect(joined.subarray(2044)).toEqual(b.subarray(44));
  });

  it('refuses what is not a PCM WAV, and pieces of different formats', () => {
    expect(() => parseWav(new TextEncoder().encode('not a wav at all, really'))).toThrow(InvalidWavError);
    expect(() => concatWav([pcm(10, 22050), pcm(10, 44100)])).toThrow('pieces differ in format');
  });
});
