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

export function at(value: unknown, ...keys: string[]): unknown {
  let current = value;
  for (const key of keys) {
    if (!isFields(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/** A non-blank string, or a finite number as text (senders disagree on ids and numbers). */
export function str(value: unknown): string | undefined {
  // /\S/ stops at the first visible character, so a megabyte string costs nothing here.
  if (typeof value === 'string') return /\S/.test(value) ? value : undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

export function textAt(value: unknown, ...keys: string[]): string | undefined {
  return str(at(value, ...keys));
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
  if (typeof value === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(value)) return Number(value);
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
