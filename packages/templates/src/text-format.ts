/** Text shaping shared by the templates: one-line titles, excerpts, refs, counts, durations. */
import { factValue, type Inline } from './markdown.js';
import { t, type Locale } from './locale.js';

const TITLE_MAX = 200;
const NEEDS_FLATTENING = /\s\s|[^\S ]|^ | $/;

/** Collapses whitespace and cuts to `max` characters with an ellipsis; reads only a prefix. */
export function oneLine(text: string, max = TITLE_MAX): string {
  // Most values (names, refs, numbers) are already one clean line: skip the rewrite.
  if (text.length <= max && !NEEDS_FLATTENING.test(text)) return text;
  const flat = text.slice(0, max * 4).replace(/\s+/g, ' ').trim();
  return cut(flat, max);
}

export function firstLine(text: string, max = 100): string {
  const end = text.search(/\r?\n/);
  return oneLine(end === -1 ? text.slice(0, max * 4) : text.slice(0, end), max);
}

/**
 * The start of a long text (issue body, chat message), line breaks kept; a cut text ends with
 * "…", at a word where one is near. Line endings are normalised before measuring, so a CRLF
 * body cut short is never mistaken for a whole one.
 */
export function excerpt(text: string, max = 500): string {
  const span = max * 2 + 2;
  const clean = text.slice(0, span).replace(/\r\n?/g, '\n').trim();
  if (clean.length <= max) return text.length > span ? `${clean}…` : clean;
  const hard = cut(clean, max);
  const body = hard.slice(0, -1);
  const space = Math.max(body.lastIndexOf(' '), body.lastIndexOf('\n'));
  return space > max * 0.8 ? `${body.slice(0, space).trimEnd()}…` : hard;
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  // Never split a surrogate pair: a lone half is not valid text.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return `${text.slice(0, end).trimEnd()}…`;
}

export function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}

export function sha7(sha: string): string {
  return sha.slice(0, 7);
}

export function isZeroSha(sha: string | undefined): boolean {
  return sha !== undefined && /^0+$/.test(sha);
}

export type RefType = 'branch' | 'tag';

/** `refs/heads/x` → branch x, `refs/tags/v1` → tag v1; a bare name keeps `fallback`'s type. */
export function parseRef(ref: string | undefined, fallback?: RefType): { type?: RefType; name?: string } {
  if (ref === undefined) return { type: fallback };
  if (ref.startsWith('refs/heads/')) return { type: 'branch', name: ref.slice(11) };
  if (ref.startsWith('refs/tags/')) return { type: 'tag', name: ref.slice(10) };
  return { type: fallback, name: ref };
}

export function branchName(ref: string | undefined): string | undefined {
  return ref === undefined ? undefined : parseRef(ref).name;
}

export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}

export function humanDuration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds * 10) / 10}s`;
  const total = Math.round(seconds);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return h > 0 ? `${h}h ${m}m` : `${m}m ${s}s`;
}

/** Seconds between two timestamps (ISO text or epoch seconds), when both parse and are ordered. */
export function secondsBetween(start: unknown, end: unknown): number | undefined {
  const a = toMillis(start);
  const b = toMillis(end);
  if (a === undefined || b === undefined || b < a) return undefined;
  return (b - a) / 1000;
}

function toMillis(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value < 1e11 ? value * 1000 : value;
  if (typeof value !== 'string' || value.length > 40) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** A fact is one line; the longest real one is a URL, far below this. */
const FACT_MAX = 1000;

/**
 * A Markdown list of `**Label:** value` items for the defined values only; a text value is one
 * escaped line of at most `FACT_MAX` (a web URL is linked), an `Md` value is the template's own
 * markup (code spans, links).
 */
export function factLines(facts: ReadonlyArray<readonly [string, Inline | undefined]>, locale: Locale = 'en'): string[] {
  const lines: string[] = [];
  for (const [label, value] of facts) {
    if (value === undefined || value === '') continue;
    lines.push(`- **${t(locale, label)}:** ${factValue(typeof value === 'string' ? oneLine(value, FACT_MAX) : value)}`);
  }
  return lines;
}

/** Text cut to `max` characters with an ellipsis, otherwise unchanged (metadata values keep their spacing). */
export function capped(text: string, max: number): string {
  return cut(text, max);
}

/** A list of names for a fact line, capped so a flood of labels stays readable. */
export function nameList(names: readonly string[], max = 20): string | undefined {
  if (names.length === 0) return undefined;
  const shown = names.slice(0, max).map((n) => oneLine(n, 80));
  return names.length > max ? `${shown.join(', ')} … and ${names.length - max} more` : shown.join(', ');
}
