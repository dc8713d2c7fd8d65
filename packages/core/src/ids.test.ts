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
});
