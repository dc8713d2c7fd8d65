import { describe, expect, it } from '@jest/globals';
import { decidePruning, type PruneCandidate } from './pruning.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const daysAgo = (days: number) => new Date(NOW.getTime() - days * 86_400_000);

function media(overrides: Partial<PruneCandidate> = {}): PruneCandidate {
  return {
    id: overrides.id ?? 'm',
    media_type: 'audio',
    bytes: 1000,
    created_at: daysAgo(1),
    last_accessed_at: null,
    generated: false,
    regenerable: false,
    transcribed: null,
    published: false,
    ...overrides,
  };
}

const reasons = (rows: PruneCandidate[], percent: number) => Object.fromEntries(decidePruning(rows, percent, NOW).map((d) => [d.id, d.reason]));

describe('pruning lifetimes (spec, Limits)', () => {
  it('deletes audio and images after 30 days and video after 14, never text', () => {
    const rows = [
      media({ id: 'audio29', media_type: 'audio', created_at: daysAgo(29) }),
      media({ id: 'audio31', media_type: 'audio', created_at: daysAgo(31) }),
      media({ id: 'image31', media_type: 'image', created_at: daysAgo(31) }),
      media({ id: 'video13', media_type: 'video', created_at: daysAgo(13) }),
      media({ id: 'video15', media_type: 'video', created_at: daysAgo(15) }),
      media({ id: 'text900', media_type: 'text', created_at: daysAgo(900) }),
    ];
    expect(reasons(rows, 50)).toEqual({ audio31: 'expired', image31: 'expired', video15: 'expired' });
  });

  it('counts from the later of created_at and last_accessed_at', () => {
    const rows = [
      media({ id: 'read-lately', created_at: daysAgo(60), last_accessed_at: daysAgo(5) }),
      media({ id: 'read-long-ago', created_at: daysAgo(60), last_accessed_at: daysAgo(40) }),
    ];
    expect(reasons(rows, 50)).toEqual({ 'read-long-ago': 'expired' });
  });

  it('a published_in edge on the owner keeps media past its lifetime', () => {
    expect(reasons([media({ id: 'p', created_at: daysAgo(400), published: true })], 50)).toEqual({});
  });

  it('audio not yet transcribed lives twice as long', () => {
    const rows = [
      media({ id: 'untranscribed45', created_at: daysAgo(45), transcribed: false }),
      media({ id: 'untranscribed61', created_at: daysAgo(61), transcribed: false }),
      media({ id: 'transcribed45', created_at: daysAgo(45), transcribed: true }),
    ];
    expect(reasons(rows, 50)).toEqual({ untranscribed61: 'expired', transcribed45: 'expired' });
  });
});

describe('pruning under disk pressure', () => {
  const regenerable = media({ id: 'tts', generated: true, regenerable: true });
  const uploaded = media({ id: 'upload', generated: false });
  const generatedOnly = media({ id: 'generated-not-regenerable', generated: true, regenerable: false });

  it('below 85 % fresh generated media stays', () => {
    expect(reasons([regenerable, uploaded], 84.99)).toEqual({});
  });

  it('at 85 % generated content that can be regenerated is deleted too', () => {
    expect(reasons([regenerable, uploaded, generatedOnly], 85)).toEqual({ tts: 'regenerable' });
  });

  it('regenerable media of a published owner stays at 85 %', () => {
    expect(reasons([media({ id: 'pub-tts', generated: true, regenerable: true, published: true })], 88)).toEqual({});
  });

  it('at 90 % lifetimes are much shorter: audio and images 7 days, video 3 days', () => {
    const rows = [
      media({ id: 'audio8', media_type: 'audio', created_at: daysAgo(8) }),
      media({ id: 'audio6', media_type: 'audio', created_at: daysAgo(6) }),
      media({ id: 'image8', media_type: 'image', created_at: daysAgo(8) }),
      media({ id: 'video4', media_type: 'video', created_at: daysAgo(4) }),
      media({ id: 'video2', media_type: 'video', created_at: daysAgo(2) }),
      media({ id: 'text', media_type: 'text', created_at: daysAgo(800) }),
    ];
    expect(reasons(rows, 90)).toEqual({ audio8: 'expired_aggressive', image8: 'expired_aggressive', video4: 'expired_aggressive' });
    expect(reasons(rows, 89.9)).toEqual({});
  });

  it('at 95 % everything without a publishing edge goes, except text', () => {
    const rows = [
      media({ id: 'new-audio', created_at: daysAgo(0) }),
      media({ id: 'new-image', media_type: 'image', created_at: daysAgo(0) }),
      media({ id: 'published', published: true }),
      media({ id: 'text', media_type: 'text' }),
    ];
    expect(reasons(rows, 95)).toEqual({ 'new-audio': 'emergency', 'new-image': 'emergency' });
  });

  it('reports id, media_type, bytes and reason for each deletion', () => {
    expect(decidePruning([media({ id: 'x', bytes: 4242, created_at: daysAgo(31) })], 10, NOW)).toEqual([
      { id: 'x', media_type: 'audio', bytes: 4242, reason: 'expired' },
    ]);
  });
});
