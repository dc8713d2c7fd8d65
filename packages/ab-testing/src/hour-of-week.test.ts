import { describe, expect, it } from '@jest/globals';
import { hourOfWeek } from './hour-of-week.js';

describe('hour_of_week', () => {
  it('is 0 at Monday 00:00 UTC and 167 at Sunday 23:59 UTC', () => {
    expect(hourOfWeek(new Date('2026-11-23T00:00:00Z'))).toBe(0); // a Monday
    expect(hourOfWeek(new Date('2026-11-23T13:30:00Z'))).toBe(13);
    expect(hourOfWeek(new Date('2026-11-25T05:00:00Z'))).toBe(53); // Wednesday
    expect(hourOfWeek(new Date('2026-11-29T23:59:59Z'))).toBe(167); // Sunday
  });

  it('stays within 0–167 for every hour of a year', () => {
    const start = Date.UTC(2026, 0, 1);
    for (let h = 0; h < 366 * 24; h++) {
      const value = hourOfWeek(new Date(start + h * 3_600_000));
      expect(value >= 0 && value <= 167).toBe(true);
    }
  });
});
