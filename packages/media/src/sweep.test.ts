import { describe, expect, it } from '@jest/globals';
import { planSweep, TEMP_GRACE_MS } from './sweep.js';

const NOW = new Date('2026-06-01T12:00:00Z');
const ID = '01900000-0000-7000-8000-000000000001';
const OTHER = '01900000-0000-7000-8000-000000000002';

describe('orphan sweep plan', () => {
  it('puts a temporary file whose row committed in place (the crash after commit, before rename)', () => {
    const files = [{ key: `${ID}.wav`, tempName: `${ID}.wav.0123456789abcdef`, bytes: 10, modifiedAt: NOW }];
    expect(planSweep(files, new Set([`${ID}.wav`]), NOW)).toEqual([{ kind: 'place', tempName: `${ID}.wav.0123456789abcdef`, key: `${ID}.wav` }]);
  });

  it('leaves a fresh temporary file without a row alone (a write in flight), and discards an old one', () => {
    const fresh = { key: `${ID}.wav`, tempName: `${ID}.wav.aaaaaaaaaaaaaaaa`, bytes: 10, modifiedAt: NOW };
    const old = { key: `${OTHER}.wav`, tempName: `${OTHER}.wav.bbbbbbbbbbbbbbbb`, bytes: 10, modifiedAt: new Date(NOW.getTime() - TEMP_GRACE_MS) };
    expect(planSweep([fresh, old], new Set(), NOW)).toEqual([{ kind: 'discard', tempName: old.tempName, key: old.key }]);
  });

  it('removes a placed file whose row is gone, keeps one whose row exists', () => {
    const files = [
      { key: `${ID}.wav`, bytes: 10, modifiedAt: NOW },
      { key: `${OTHER}.wav`, bytes: 10, modifiedAt: NOW },
    ];
    expect(planSweep(files, new Set([`${ID}.wav`]), NOW)).toEqual([{ kind: 'remove', key: `${OTHER}.wav` }]);
  });
});
