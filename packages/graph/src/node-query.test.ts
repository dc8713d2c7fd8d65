import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { AppError } from '@inntak/core';
import { decodeCursor, encodeCursor } from './node-query.js';

describe('the opaque cursor', () => {
  it('gives back the keyset it was made from, for listings (id) and searches (id and rank)', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.option(fc.float({ min: 0, max: 1, noNaN: true }), { nil: undefined }), (id, rank) => {
        const keyset = rank === undefined ? { id } : { id, rank: String(Math.fround(rank)) };
        expect(decodeCursor(encodeCursor(keyset))).toEqual(keyset);
      }),
    );
  });

  it('refuses anything it did not make as invalid input naming the cursor', () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const cursor of ['', 'abc', forged({ id: 'x' }), forged(['not-a-uuid']), forged(['019a0000-0000-7000-8000-000000000000', 'NaN']), forged(['019a0000-0000-7000-8000-000000000000', 1, 2])]) {
      expect(() => decodeCursor(cursor)).toThrow(AppError);
      expect(() => decodeCursor(cursor)).toThrow(/^cursor: /);
    }
  });
});
