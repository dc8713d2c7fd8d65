import { storable } from '@inntak/core';

/**
 * What a graph write may store (docs/security.md). PostgreSQL refuses NUL and lone UTF-16
 * surrogates in text and jsonb, and deep JSON costs every reader that walks it; a write that
 * carries either is refused (400) before it reaches the database. Intake is different: it must
 * accept what senders post, so it repairs such text instead (packages/core/src/storable.ts).
 */

/** Deepest nesting of objects and arrays in node and edge metadata (the object itself is 1). */
export const MAX_METADATA_DEPTH = 32;

/** Largest edge metadata, as UTF-8 JSON: edges travel with every read of both endpoints. */
export const MAX_EDGE_METADATA_BYTES = 16 * 1024;

const UNSTORABLE = 'inneholder NUL eller en ensom surrogat, som ikke kan lagres';

/** Why `text` cannot be stored as given, or null. */
export function textProblem(text: string): string | null {
  return storable(text) === text ? null : UNSTORABLE;
}

/**
 * Why a JSON value cannot be stored as given (too deep, or a key or string that is not
 * storable), or null. Walks with its own stack: the value may be nested far deeper than the
 * call stack allows.
 */
export function jsonProblem(value: unknown, maxDepth = MAX_METADATA_DEPTH): string | null {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item === 'string') {
      if (textProblem(item)) return UNSTORABLE;
      continue;
    }
    if (typeof item !== 'object' || item === null) continue;
    if (depth > maxDepth) return `er nestet dypere enn ${maxDepth} nivåer`;
    if (Array.isArray(item)) {
      for (const child of item) stack.push([child, depth + 1]);
      continue;
    }
    for (const [key, child] of Object.entries(item)) {
      if (textProblem(key)) return UNSTORABLE;
      stack.push([child, depth + 1]);
    }
  }
  return null;
}

/** Why edge metadata cannot be stored (jsonProblem, or larger than MAX_EDGE_METADATA_BYTES), or null. */
export function edgeMetadataProblem(metadata: unknown): string | null {
  const problem = jsonProblem(metadata);
  if (problem) return problem;
  const bytes = Buffer.byteLength(JSON.stringify(metadata));
  return bytes > MAX_EDGE_METADATA_BYTES ? `er ${bytes} byte; største tillatte er ${MAX_EDGE_METADATA_BYTES}` : null;
}
