import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { globMatches } from './index.js';

/** The meaning of a glob, as a regular expression (fine for the small inputs of a test). */
function reference(pattern: string, text: string): boolean {
  const source = [...pattern.toLowerCase()].map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`, 's').test(text.toLowerCase());
}

describe('matches (glob) with ? pieces found in one pass', () => {
  it('agrees with the glob’s meaning on any pattern and text over a small alphabet, pieces past 32 characters included', () => {
    const alphabet = fc.constantFrom('a', 'b', 'A', '?', '*');
    fc.assert(
      fc.property(fc.array(alphabet, { minLength: 1, maxLength: 80 }), fc.array(fc.constantFrom('a', 'b', 'B'), { maxLength: 120 }), (p, t) => {
        const pattern = p.join('');
        const text = t.join('');
        expect(globMatches(pattern, text)).toBe(reference(pattern, text));
      }),
      { numRuns: 3000 },
    );
  });

  it('finds a long ? piece after a near miss, and not where its last character never comes', () => {
    const piece = `${'a'.repeat(40)}?${'a'.repeat(40)}b`;
    expect(globMatches(`*${piece}*`, `${'a'.repeat(5000)}x${'a'.repeat(40)}b`)).toBe(true);
    expect(globMatches(`*${piece}*`, `${'a'.repeat(5000)}c`)).toBe(false);
    expect(globMatches(`*${piece}*`, `${'a'.repeat(81)}b`)).toBe(true);
    expect(globMatches(`*${piece}*`, `${'a'.repeat(80)}b`)).toBe(false);
    expect(globMatches(`x*${piece}*y`, `x${'a'.repeat(81)}by`)).toBe(true);
  });
});
