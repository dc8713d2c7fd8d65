/**
 * PostgreSQL text and jsonb refuse NUL and lone UTF-16 surrogates, which JSON can carry
 * (`"\u0000"`, `"\ud800"`). Text bound for the database goes through here so that a payload's
 * shape never turns a delivery into a database error: NUL is dropped, a lone surrogate becomes
 * U+FFFD. Everything else is returned as is (the same object when nothing needed changing).
 */
// eslint-disable-next-line no-control-regex -- NUL is exactly the character to find
const UNSTORABLE = /[\u0000\uD800-\uDFFF]/;

export function storable(text: string): string {
  if (!UNSTORABLE.test(text)) return text;
  // eslint-disable-next-line no-control-regex -- as above
  return text.replace(/\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, (c) => (c === '\u0000' ? '' : '\uFFFD'));
}

/** `storable` applied to every string and object key of a JSON value. */
export function storableJson(value: unknown): unknown {
  return mapJsonStrings(value, storable);
}

/**
 * `change` applied to every string and object key of a JSON value; the same value back (not a
 * copy) when nothing changed. It recurses: bodies are refused beyond JSON_MAX_DEPTH first.
 */
export function mapJsonStrings(value: unknown, change: (text: string) => string): unknown {
  if (typeof value === 'string') return change(value);
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const next = mapJsonStrings(item, change);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const newKey = change(key);
    const next = mapJsonStrings(item, change);
    if (next !== item || newKey !== key) changed = true;
    out[newKey] = next;
  }
  return changed ? out : value;
}
