import { describe, expect, it } from '@jest/globals';
import { JSON_MAX_DEPTH, jsonNestsDeeperThan } from './json-depth.js';

describe('JSON nesting depth', () => {
  it('counts objects and arrays, in text and in bytes', () => {
    expect(jsonNestsDeeperThan('{"a":[{"b":[]}]}', 4)).toBe(false);
    expect(jsonNestsDeeperThan('{"a":[{"b":[[]]}]}', 4)).toBe(true);
    expect(jsonNestsDeeperThan(Buffer.from('{"a":[{"b":[[]]}]}'), 4)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonNestsDeeperThan('["[[[[[", "\\"[[[[[[", "\\\\", {}]', 2)).toBe(false);
  });

  it(`refuses 2,000 and 100,000 levels at the default limit of ${JSON_MAX_DEPTH}, accepts the limit itself`, () => {
    expect(jsonNestsDeeperThan('['.repeat(2000) + ']'.repeat(2000))).toBe(true);
    expect(jsonNestsDeeperThan('{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000))).toBe(true);
    expect(jsonNestsDeeperThan('['.repeat(JSON_MAX_DEPTH) + ']'.repeat(JSON_MAX_DEPTH))).toBe(false);
  });
});
