import { describe, expect, it } from '@jest/globals';
import { RawJson, stringifyJson } from './raw-json.js';

describe('raw JSON', () => {
  it('is spliced unparsed into a top-level object, and other values serialize as usual', () => {
    const text = stringifyJson({ source: 'webhook', payload: new RawJson('{"big": [1, 2]}'), gone: undefined, n: 1 });
    expect(text).toBe('{"source":"webhook","payload":{"big": [1, 2]},"n":1}');
    expect(JSON.parse(text)).toEqual({ source: 'webhook', payload: { big: [1, 2] }, n: 1 });
  });

  it('serializes to the same document through plain JSON.stringify', () => {
    expect(JSON.parse(JSON.stringify({ payload: new RawJson('[1,{"a":"b"}]') }))).toEqual({ payload: [1, { a: 'b' }] });
    expect(stringifyJson({ a: [1] })).toBe('{"a":[1]}');
  });
});
