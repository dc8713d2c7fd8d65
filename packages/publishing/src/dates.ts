import type { PageLanguage } from './models.js';

/**
 * Dates on the pages are the publication's calendar dates: shown in its language and grouped by
 * month in Europe/Oslo time, so an article published 00:30 on 1 March Oslo time is a March article.
 */
const TIME_ZONE = 'Europe/Oslo';
const INTL_LOCALE: Readonly<Record<PageLanguage, string>> = { nb: 'nb-NO', en: 'en-GB' };
const dayFormats = new Map<PageLanguage, Intl.DateTimeFormat>();
const monthFormats = new Map<PageLanguage, Intl.DateTimeFormat>();
const keyFormat = new Intl.DateTimeFormat('en-CA', { year: 'numeric', month: '2-digit', timeZone: TIME_ZONE });

function formatOf(cache: Map<PageLanguage, Intl.DateTimeFormat>, language: PageLanguage, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  let format = cache.get(language);
  if (!format) cache.set(language, (format = new Intl.DateTimeFormat(INTL_LOCALE[language], { ...options, timeZone: TIME_ZONE })));
  return format;
}

export function formatDay(at: Date, language: PageLanguage = 'nb'): string {
  return formatOf(dayFormats, language, { dateStyle: 'long' }).format(at);
}

/** `2026-03`: sorts and groups. */
export function monthKey(at: Date): string {
  return keyFormat.format(at).slice(0, 7);
}

/** `mars 2026` / `March 2026`. */
export function monthLabel(at: Date, language: PageLanguage = 'nb'): string {
  return formatOf(monthFormats, language, { month: 'long', year: 'numeric' }).format(at);
}

export interface MonthGroup<T> {
  key: string;
  label: string;
  items: T[];
}

/** Groups items (already in order) into consecutive months, keeping their order. */
export function groupByMonth<T>(items: readonly T[], dateOf: (item: T) => Date, language: PageLanguage = 'nb'): MonthGroup<T>[] {
  const groups: MonthGroup<T>[] = [];
  for (const item of items) {
    const at = dateOf(item);
    const key = monthKey(at);
    const last = groups[groups.length - 1];
    if (last && last.key === key) last.items.push(item);
    else groups.push({ key, label: monthLabel(at, language), items: [item] });
  }
  return groups;
}
