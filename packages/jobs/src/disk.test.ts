import { describe, expect, it } from '@jest/globals';
import { classifyDisk, usedPercent } from './disk.js';
import { cachedLiveRoomStatus } from './live-room.js';

describe('disk classification', () => {
  it('classifies 85 % as warning, 90 % as critical, 95 % as emergency', () => {
    expect(classifyDisk(84.99)).toBe('ok');
    expect(classifyDisk(85)).toBe('warning');
    expect(classifyDisk(90)).toBe('critical');
    expect(classifyDisk(95)).toBe('emergency');
    expect(classifyDisk(100)).toBe('emergency');
  });

  it('computes used percent from total and free bytes', () => {
    expect(usedPercent({ totalBytes: 1000, freeBytes: 100 })).toBe(90);
    expect(usedPercent({ totalBytes: 0, freeBytes: 0 })).toBe(0);
  });
});

describe('live-room status cache', () => {
  it('asks the source at most once per TTL', async () => {
    let calls = 0;
    let active = false;
    let time = 0;
    const status = cachedLiveRoomStatus({ isActive: async () => (calls++, active) }, 10_000, () => time);
    expect(await status.isActive()).toBe(false);
    active = true;
    time = 9_999;
    expect(await status.isActive()).toBe(false);
    time = 10_000;
    expect(await status.isActive()).toBe(true);
    expect(calls).toBe(2);
  });
});
