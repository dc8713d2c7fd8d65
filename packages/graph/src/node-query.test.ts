import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { AppError } from '@inntak/core';
import { randomBytes } from 'node:crypto';
import { decodeCursor, encodeCursor } from './node-query.js';

const key = randomBytes(32);

describe('the opaque cursor', () => {
  it('gives back the keyset it was made from, for listings (id) and searches (id and rank)', () => {
    fc.assert(
      fc.property(fc.uuid(), fc.option(fc.float({ min: 0, max: 1, noNaN: true }), { nil: undefined }), (id, rank) => {
        const keyset = rank === undefined ? { id } : { id, rank: String(Math.fround(rank)) };
        expect(decodeCursor(encodeCursor(keyset, key), key)).toEqual(keyset);
      }),
    );
  });

  it('refuses anything it did not make as invalid input naming the cursor: forged, edited, or sealed with another key', () => {
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const id = '019a0000-0000-7000-8000-000000000000';
    const real = encodeCursor({ id, rank: '0.5' }, key);
    const edited = Buffer.from(real, 'base64url');
    edited[edited.length - 1]! ^= 1;
    for (const cursor of [
      '',
      'abc',
      forged([id]),
      forged([id, '1e999']),
      edited.toString('base64url'),
      encodeCursor({ id, rank: '0.5' }, randomBytes(32)),
    ]) {
      expect(() => decodeCursor(cursor, key)).toThrow(AppError);
      expect(() => decodeCursor(cursor, key)).toThrow(/^cursor: /);
    }
  });

  it('does not show the rank: the same keyset seals to a different text each time', () => {
    const keyset = { id: '019a0000-0000-7000-8000-000000000000', rank: '0.0607927' };
    const a = encodeCursor(keyset, key);
    expect(encodeCursor(keyset, key)).not.toBe(a);
    expect(Buffer.from(a, 'base64url').toString('latin1')).not.toContain('0.0607927');
  });
});
