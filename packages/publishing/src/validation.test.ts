import { describe, expect, it } from '@jest/globals';
import { hostName, isValidSlug, normalizeDomain } from './validation.js';

describe('slugs and domains', () => {
  it('a slug is lowercase letters, digits and inner hyphens', () => {
    for (const ok of ['nyheter', 'a', 'blogg-2026', 'x'.repeat(63)]) expect(isValidSlug(ok)).toBe(true);
    for (const bad of ['', 'Nyheter', '-a', 'a-', 'a/b', 'æøå', 'a b', 'x'.repeat(64), '../om']) expect(isValidSlug(bad)).toBe(false);
  });

  it('a domain is a lowercased host name of at least two labels, without port or address', () => {
    expect(normalizeDomain('Blogg.Example.NO')).toBe('blogg.example.no');
    expect(normalizeDomain('nyheter.test')).toBe('nyheter.test');
    for (const bad of ['localhost', 'example.com:8080', '-a.no', 'a..no', 'http://a.no', '127.0.0.1', 'a_b.no', `${'a'.repeat(64)}.no`, '']) {
      expect(normalizeDomain(bad)).toBeUndefined();
    }
  });

  it('the host name of a Host header drops the port and a trailing dot', () => {
    expect(hostName('Blogg.Example.no:8080')).toBe('blogg.example.no');
    expect(hostName('blogg.example.no.')).toBe('blogg.example.no');
    expect(hostName(undefined)).toBeUndefined();
  });
});
