import { describe, expect, it } from '@jest/globals';
import { cpuGrowth } from './__tests__/growth.js';
import { speechTextOf, splitForSpeech } from './speech-text.js';

describe('speech text', () => {
  it('reads the title, then the content, with a full stop between', () => {
    expect(speechTextOf({ title: 'Nytt bygg', content: 'Det  åpner\n i dag.' })).toBe('Nytt bygg. Det åpner i dag.');
    expect(speechTextOf({ title: null, content: '  ' })).toBe('');
  });

  it('long texts are split at sentence ends into pieces that together hold the whole text', () => {
    const sentence = 'Dette er en setning om været i Bergen. ';
    const text = sentence.repeat(40).trim();
    const pieces = splitForSpeech(text, 200);
    expect(pieces.length).toBeGreaterThan(5);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(200);
      expect(piece.endsWith('.')).toBe(true);
    }
    expect(pieces.join(' ')).toBe(text);
  });

  it('a text without sentence ends or spaces is still cut, in linear time', () => {
    const text = 'a'.repeat(100_000);
    const pieces = splitForSpeech(text, 400);
    expect(pieces.join('')).toBe(text);
    expect(Math.max(...pieces.map((p) => p.length))).toBe(400);
    // 25,000 and 100,000 characters: linear costs at most 4 times as much, quadratic 16.
    const work = (size: number) => {
      const long = 'a'.repeat(size);
      return () => splitForSpeech(long, 400);
    };
    expect(cpuGrowth(work, 25_000)).toBeLessThan(10);
  });
});
