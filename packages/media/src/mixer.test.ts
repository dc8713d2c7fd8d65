import { describe, expect, it } from '@jest/globals';
import { mixerDeliveries } from './mixer.js';

describe('mixer channel audience', () => {
  it('goes to the room creator and subjects with access rows of a hidden room', () => {
    expect(mixerDeliveries('ch', { created_by: 'p1', visibility: 'hidden', access: [['p2', 'reader']] })).toEqual([
      { row: 'ch', subjects: ['p2', 'p1'], everyone: false },
    ]);
  });

  it('goes to everyone when the room is readable, and to nobody else when discoverable', () => {
    expect(mixerDeliveries('ch', { created_by: null, visibility: 'readable', access: [] })).toEqual([{ row: 'ch', subjects: [], everyone: true }]);
    expect(mixerDeliveries('ch', { created_by: null, visibility: 'discoverable', access: [] })).toEqual([]);
  });
});
