import { describe, expect, it } from '@jest/globals';
import { DEFAULT_SPEECH_LIMITS, speechRefusal } from './speech-limits.js';

describe('speechRefusal', () => {
  it('refuses the attack of issue 22 (19,666 characters at 80 wpm) by its estimated audio, and lets it pass at 175', () => {
    expect(speechRefusal(DEFAULT_SPEECH_LIMITS, 19_666, 80)).toEqual({ limit: 'audio', seconds: 2459, max: 1200 });
    expect(speechRefusal(DEFAULT_SPEECH_LIMITS, 19_666, 175)).toBeUndefined();
  });

  it('checks the text first, then the audio, then the collection', () => {
    expect(speechRefusal(DEFAULT_SPEECH_LIMITS, 20_001, 80)).toMatchObject({ limit: 'text', chars: 20_001 });
    const limits = { ...DEFAULT_SPEECH_LIMITS, collectionMediaBytes: 100_000 };
    // 10 characters at 175 wpm: 1 s, 44 100 bytes and a header.
    expect(speechRefusal(limits, 10, 175, 55_856)).toBeUndefined();
    expect(speechRefusal(limits, 10, 175, 55_857)).toEqual({ limit: 'collection_bytes', bytes: 100_001, max: 100_000 });
  });
});
