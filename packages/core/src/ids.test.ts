import { describe, expect, it } from '@jest/globals';
import { isUuid, uuidv7 } from './ids.js';

describe('uuidv7', () => {
  it('produces a version 7, variant 10 UUID', () => {
    const id = uuidv7();
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect(['8', '9', 'a', 'b']).toContain(id[19]);
  });

  it('orders ids by their creation millisecond', () => {
    const earlier = uuidv7(Date.UTC(2026, 0, 1));
    const later = uuidv7(Date.UTC(2026, 0, 1) + 1);
    expect(earlier < later).toBe(true);
    expect(earlier.slice(0, 13)).toBe('019b76da-a800');
  });

  it('is strictly increasing within one millisecond', () => {
    const ids = Array.from({ length: 5000 }, () => uuidv7());
    const millis = new Set(ids.map((id) => id.slice(0, 13)));
    expect(millis.size).toBeLessThan(ids.length);
    for (let i = 1; i < ids.length; i++) expect(ids[i - 1]! < ids[i]!).toBe(true);
  });
});
