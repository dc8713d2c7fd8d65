/**
 * Dates on the pages are Norwegian calendar dates: shown in nb-NO and grouped by month in
 * Europe/Oslo time, so an article published 00:30 on 1 March Oslo time is a March article.
 */
const TIME_ZONE = 'Europe/Oslo';
const dayFormat = new Intl.DateTimeFormat('nb-NO', { dateStyle: 'long', timeZone: TIME_ZONE });
const monthFormat = new Intl.DateTimeFormat('nb-NO', { month: 'long', year: 'numeric', timeZone: TIME_ZONE });
const keyFormat = new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', timeZone: TIME_ZONE });

export function formatDay(at: Date): string {
  return dayFormat.format(at);
}

/** `2026-03`: sorts and groups. */
export function monthKey(at: Date): string {
  return keyFormat.format(at).slice(0, 7);
}

/** `mars 2026`. */
export function monthLabel(at: Date): string {
  return monthFormat.format(at);
}

export interface MonthGroup<T> {
  key: string;
  label: string;
  items: T[];
}

/** Groups items (already in order) into consecutive months, keeping their order. */
export function groupByMonth<T>(items: readonly T[], dateOf: (item: T) => Date): MonthGroup<T>[] {
  const groups: MonthGroup<T>[] = [];
  for (const item of items) {
    const at = dateOf(item);
    const key = monthKey(at);
    const last = groups[groups.length - 1];
    if (last && last.key === key) last.items.push(item);
    else groups.push({ key, label: monthLabel(at), items: [item] });
  }
  return groups;
}
