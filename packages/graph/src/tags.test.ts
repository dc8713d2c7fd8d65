import { describe, expect, it } from '@jest/globals';
import { nodeTraits, normalizeTag, TAG_MAX_LENGTH } from './tags.js';

describe('tags', () => {
  it('a tag name is trimmed, collapsed and lower-cased', () => {
    expect(normalizeTag('  Norsk   Politikk ')).toBe('norsk politikk');
    expect(normalizeTag('ÆØÅ')).toBe('æøå');
  });

  it('an empty, overlong, slash or control-character tag is refused', () => {
    expect(normalizeTag('   ')).toBeNull();
    expect(normalizeTag('a'.repeat(TAG_MAX_LENGTH + 1))).toBeNull();
    expect(normalizeTag('a'.repeat(TAG_MAX_LENGTH))).toBe('a'.repeat(TAG_MAX_LENGTH));
    expect(normalizeTag('a/b')).toBeNull();
    expect(normalizeTag('a\u0000b')).toBeNull();
    expect(normalizeTag('a\ud800b')).toBeNull();
  });

  it('traits are the strings in metadata.traits', () => {
    expect(nodeTraits({ traits: ['lyd', 3, 'video'] })).toEqual(['lyd', 'video']);
    expect(nodeTraits({ traits: 'lyd' })).toEqual([]);
    expect(nodeTraits({})).toEqual([]);
  });
});
