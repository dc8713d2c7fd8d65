/**
 * The deepest JSON this service accepts in a request body. Every walk over a payload (storing,
 * templates, the change stream, search, preview) recurses, and JavaScript's stack holds a few
 * thousand frames; refusing deeper bodies at the door keeps all of those walks safe. Real
 * webhook payloads are under 20 levels deep.
 */
export const JSON_MAX_DEPTH = 512;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * True when the JSON text nests objects and arrays deeper than `limit`. One pass over the bytes
 * (UTF-8 or a JS string's UTF-16 code units: the characters it looks at are ASCII, which never
 * occur inside a multi-byte sequence), stopping at the first level too deep. Unbalanced or
 * otherwise invalid JSON is left for the parser to reject.
 */
export function jsonNestsDeeperThan(text: Uint8Array | string, limit = JSON_MAX_DEPTH): boolean {
  const at = typeof text === 'string' ? (i: number) => text.charCodeAt(i) : (i: number) => text[i]!;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = at(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
