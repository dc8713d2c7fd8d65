/**
 * Total readers over untrusted JSON: every function accepts any value and answers `undefined`
 * (or an empty list/object) instead of throwing, whatever the payload's shape. Only own
 * properties are read, so `constructor` or `__proto__` in a path never reach the prototype.
 */
export type Fields = { readonly [key: string]: unknown };

const NOTHING: Fields = Object.freeze({});

export function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function fields(value: unknown): Fields {
  return isFields(value) ? value : NOTHING;
}

/**
 * The value at a path of up to four keys. Fixed parameters rather than a rest array: this runs
 * a few hundred times per delivery and a rest array per call is most of the garbage.
 */
export function at(value: unknown, k1: string, k2?: string, k3?: string, k4?: string): unknown {
  let current = own(value, k1);
  if (k2 === undefined) return current;
  current = own(current, k2);
  if (k3 === undefined) return current;
  current = own(current, k3);
  return k4 === undefined ? current : own(current, k4);
}

function own(value: unknown, key: string): unknown {
  return isFields(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

/**
 * The most of one payload string a template reads. Every string reaches the templates through
 * `str` (or `capText`), so no rendering step, regex or not, ever sees more than this of a field:
 * the cost of a render is bounded whatever a sender or a preview puts in one field.
 */
export const TEXT_CAP = 64 * 1024;

/** The first `TEXT_CAP` characters, never ending in half a surrogate pair. */
export function capText(text: string): string {
  if (text.length <= TEXT_CAP) return text;
  const code = text.charCodeAt(TEXT_CAP - 1);
  // A slice of a long string is a view in V8, not a copy: capping costs nothing.
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? TEXT_CAP - 1 : TEXT_CAP);
}

/** A non-blank string (capped at `TEXT_CAP`), or a finite number as text (senders disagree on ids and numbers). */
export function str(value: unknown): string | undefined {
  if (typeof value === 'string') {
    const text = capText(value);
    // /\S/ stops at the first visible character; on the capped text it is bounded either way.
    return /\S/.test(text) ? text : undefined;
  }
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

export function textAt(value: unknown, k1: string, k2?: string, k3?: string, k4?: string): string | undefined {
  return str(at(value, k1, k2, k3, k4));
}

export function firstStr(...values: unknown[]): string | undefined {
  for (const value of values) {
    const s = str(value);
    if (s !== undefined) return s;
  }
  return undefined;
}

/** A finite number, or a string holding one ("4601"). */
export function num(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  // No number a sender means is longer than 40 characters; the length check bounds the regex.
  if (typeof value === 'string' && value.length <= 40 && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
  return undefined;
}

export function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

export function isTrue(value: unknown): boolean {
  return value === true;
}

/** A table lookup by a sender-chosen key: `__proto__` or `constructor` must not hit the prototype. */
export function lookup<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
