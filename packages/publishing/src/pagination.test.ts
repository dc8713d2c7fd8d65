import { describe, expect, it } from '@jest/globals';
import { MAX_PAGE, PAGE_SIZE, pageWindow, paginate, parsePage } from './pagination.js';
import { groupByMonth } from './dates.js';

describe('pagination', () => {
  it('?side= is a whole page number from 1 to MAX_PAGE; anything else is no page', () => {
    expect(parsePage(undefined)).toBe(1);
    expect(parsePage('2')).toBe(2);
    expect(parsePage(String(MAX_PAGE))).toBe(MAX_PAGE);
    for (const bad of ['0', '-1', '1.5', 'abc', '', '01', String(MAX_PAGE + 1), ['1', '2']]) expect(parsePage(bad)).toBeUndefined();
  });

  it('reads one row more than a page to know whether a next page exists', () => {
    expect(pageWindow(3)).toEqual({ limit: PAGE_SIZE + 1, offset: 2 * PAGE_SIZE });
    const rows = Array.from({ length: PAGE_SIZE + 1 }, (_, i) => i);
    expect(paginate(rows, 1)).toEqual({ items: rows.slice(0, PAGE_SIZE), page: 1, hasNext: true });
    expect(paginate(rows.slice(0, 3), 2)).toEqual({ items: [0, 1, 2], page: 2, hasNext: false });
    expect(paginate([], 1)).toEqual({ items: [], page: 1, hasNext: false });
    expect(paginate([], 2)).toBeUndefined();
  });
});

describe('month grouping', () => {
  it('groups consecutive articles by Oslo calendar month, keeping their order', () => {
    const at = (iso: string) => ({ iso, date: new Date(iso) });
    const groups = groupByMonth(
      [at('2026-03-15T12:00:00Z'), at('2026-02-28T23:30:00Z'), at('2026-02-10T08:00:00Z'), at('2026-01-31T22:59:00Z')],
      (a) => a.date,
    );
    // 2026-02-28T23:30Z is 1 March 00:30 in Oslo (UTC+1); 2026-01-31T22:59Z is still 31 January.
    expect(groups.map((g) => [g.key, g.label, g.items.map((i) => i.iso)])).toEqual([
      ['2026-03', 'mars 2026', ['2026-03-15T12:00:00Z', '2026-02-28T23:30:00Z']],
      ['2026-02', 'februar 2026', ['2026-02-10T08:00:00Z']],
      ['2026-01', 'januar 2026', ['2026-01-31T22:59:00Z']],
    ]);
  });
});
