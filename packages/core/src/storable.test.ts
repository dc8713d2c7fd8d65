import { describe, expect, it } from '@jest/globals';
import { storable, storableJson } from './storable.js';

describe('storable text', () => {
  it('drops NUL and replaces lone surrogates, keeping pairs', () => {
    expect(storable('a\u0000b')).toBe('ab');
    expect(storable('x\uD800y')).toBe('x\uFFFDy');
    expect(storable('x\uDC00')).toBe('x\uFFFD');
    expect(storable('😀 ok')).toBe('😀 ok');
  });

  it('returns the same JSON value when nothing needs changing', () => {
    const value = { a: ['b', { c: 1 }], d: null };
    expect(storableJson(value)).toBe(value);
  });

  it('cleans every string and key of a JSON value', () => {
    expect(storableJson({ 'k\u0000': ['v\u0000', { deep: '\uD800' }], n: 1 })).toEqual({ k: ['v', { deep: '\uFFFD' }], n: 1 });
  });
});
