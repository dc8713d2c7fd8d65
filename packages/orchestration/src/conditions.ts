import { z } from 'zod';
import type { Condition } from './types.js';
import { lookupVariable, VariableError, type VariableContext } from './variables.js';

export type { Comparison, Condition } from './types.js';

/** Nesting deeper than this is refused: evaluating a condition stays bounded by its size. */
export const MAX_CONDITION_DEPTH = 8;
export const MAX_PATTERN_LENGTH = 200;
/**
 * Comparisons one condition may hold (a when, a filter, a trigger's where): each reads up to
 * MATCH_TEXT_CAP characters of the event, and a trigger's where was bounded only by the 1 MB body.
 */
export const MAX_CONDITION_COMPARISONS = 64;
/** `matches` reads at most this much of a value (64 K characters, as templates cap payload text). */
export const MATCH_TEXT_CAP = 64 * 1024;

const WHOLE_VARIABLE = /^\{[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*\}$/;
const TESTS = ['equals', 'in', 'exists', 'matches', 'gt', 'gte', 'lt', 'lte'] as const;

const ComparisonShape = z
  .strictObject({
    value: z.string().regex(WHOLE_VARIABLE, 'forventet én {variabel}, f.eks. "{event.node.metadata.status}"'),
    equals: z.json().optional(),
    in: z.array(z.json()).min(1).max(100).optional(),
    exists: z.boolean().optional(),
    matches: z.string().min(1).max(MAX_PATTERN_LENGTH).optional(),
    gt: z.number().optional(),
    gte: z.number().optional(),
    lt: z.number().optional(),
    lte: z.number().optional(),
  })
  .refine((c) => TESTS.some((t) => (c as Record<string, unknown>)[t] !== undefined), {
    message: `forventet minst én av ${TESTS.join(', ')}`,
  });

export const ConditionShape: z.ZodType<Condition> = z.lazy(() =>
  z.union([
    z.strictObject({ all: z.array(ConditionShape).min(1).max(50) }),
    z.strictObject({ any: z.array(ConditionShape).min(1).max(50) }),
    z.strictObject({ not: ConditionShape }),
    ComparisonShape,
  ]),
) as z.ZodType<Condition>;

/** The variables a condition compares, with their paths in the condition (for checking them before saving). */
export function conditionVariables(condition: Condition, path: (string | number)[] = []): Array<{ variable: string; path: (string | number)[] }> {
  if ('all' in condition) return condition.all.flatMap((c, i) => conditionVariables(c, [...path, 'all', i]));
  if ('any' in condition) return condition.any.flatMap((c, i) => conditionVariables(c, [...path, 'any', i]));
  if ('not' in condition) return conditionVariables(condition.not, [...path, 'not']);
  return [{ variable: condition.value.slice(1, -1), path: [...path, 'value'] }];
}

export function conditionComparisons(condition: Condition): number {
  if ('all' in condition) return condition.all.reduce((n, c) => n + conditionComparisons(c), 0);
  if ('any' in condition) return condition.any.reduce((n, c) => n + conditionComparisons(c), 0);
  if ('not' in condition) return conditionComparisons(condition.not);
  return 1;
}

export function conditionDepth(condition: Condition): number {
  if ('all' in condition) return 1 + Math.max(...condition.all.map(conditionDepth));
  if ('any' in condition) return 1 + Math.max(...condition.any.map(conditionDepth));
  if ('not' in condition) return 1 + conditionDepth(condition.not);
  return 1;
}

/** Whether the condition holds; when it does not, the first comparison that decided it, in words (for the log). */
export function evaluateCondition(condition: Condition, context: VariableContext): { holds: boolean; reason: string } {
  if ('all' in condition) {
    for (const part of condition.all) {
      const result = evaluateCondition(part, context);
      if (!result.holds) return result;
    }
    return { holds: true, reason: '' };
  }
  if ('any' in condition) {
    const reasons = condition.any.map((part) => evaluateCondition(part, context));
    if (reasons.some((r) => r.holds)) return { holds: true, reason: '' };
    return { holds: false, reason: `ingen av (${reasons.map((r) => r.reason).join('; ')})` };
  }
  if ('not' in condition) {
    const inner = evaluateCondition(condition.not, context);
    return { holds: !inner.holds, reason: inner.holds ? `not: ${describeComparisonOf(condition.not)} holdt` : '' };
  }
  const value = valueOf(condition.value, context);
  for (const test of TESTS) {
    const expected = (condition as unknown as Record<string, unknown>)[test];
    if (expected === undefined) continue;
    if (!holds(test, expected, value)) return { holds: false, reason: `${condition.value} ${test} ${JSON.stringify(expected)} holdt ikke` };
  }
  return { holds: true, reason: '' };
}

function describeComparisonOf(condition: Condition): string {
  return 'value' in condition ? condition.value : 'vilkåret';
}

/** A variable's value, or undefined when it does not resolve (a condition asks; it never fails the step). */
function valueOf(variable: string, context: VariableContext): unknown {
  try {
    return lookupVariable(variable.slice(1, -1), context);
  } catch (error) {
    if (error instanceof VariableError) return undefined;
    throw error;
  }
}

function holds(test: (typeof TESTS)[number], expected: unknown, value: unknown): boolean {
  switch (test) {
    case 'exists':
      return (value !== undefined) === expected;
    case 'equals':
      return value !== undefined && sameJson(value, expected);
    case 'in':
      return value !== undefined && (expected as unknown[]).some((item) => sameJson(value, item));
    case 'matches':
      return (typeof value === 'string' || typeof value === 'number') && globMatches(expected as string, String(value));
    default: {
      const number = numberOf(value);
      if (number === undefined) return false;
      const bound = expected as number;
      return test === 'gt' ? number > bound : test === 'gte' ? number >= bound : test === 'lt' ? number < bound : number <= bound;
    }
  }
}

/** Numbers, and strings of at most 40 characters holding a decimal number (payloads often carry "42"). */
function numberOf(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && value.length <= 40 && /^-?\d+(?:\.\d+)?$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * A glob over text, case-insensitive: `*` any run of characters, `?` one. Linear in the text for
 * a given pattern: the pattern is split at its stars, the first and last pieces are anchored,
 * and each piece between is found leftmost after the previous one (leftmost is always right for
 * stars, so nothing is tried twice): at most text × pattern comparisons, the pattern ≤ 200.
 */
export function globMatches(pattern: string, value: string): boolean {
  const text = value.slice(0, MATCH_TEXT_CAP).toLowerCase();
  const pieces = pattern.toLowerCase().split('*');
  if (pieces.length === 1) return text.length === pieces[0]!.length && pieceAt(text, 0, pieces[0]!);
  const first = pieces[0]!;
  const last = pieces.at(-1)!;
  const end = text.length - last.length;
  if (end < first.length || !pieceAt(text, 0, first) || !pieceAt(text, end, last)) return false;
  let position = first.length;
  for (const piece of pieces.slice(1, -1)) {
    if (piece === '') continue;
    const found = findPiece(text, piece, position, end);
    if (found < 0) return false;
    position = found + piece.length;
  }
  return true;
}

function pieceAt(text: string, at: number, piece: string): boolean {
  for (let i = 0; i < piece.length; i++) {
    if (piece[i] !== '?' && piece[i] !== text[at + i]) return false;
  }
  return true;
}

function findPiece(text: string, piece: string, from: number, end: number): number {
  if (!piece.includes('?')) {
    const found = text.indexOf(piece, from);
    return found >= 0 && found + piece.length <= end ? found : -1;
  }
  return shiftAnd(text, piece, from, end);
}

/**
 * The leftmost place at or after `from` where `piece` (with `?` for any one character) ends by
 * `end`, by the shift-and (bitap) algorithm: one pass over the text, ⌈piece / 32⌉ word operations
 * per character. Trying each start in turn (as before) cost text × piece: a 200-character piece
 * that fails at its last character held the event loop 0.3 s over 64 K characters, and a trigger
 * or script carries many such comparisons.
 */
function shiftAnd(text: string, piece: string, from: number, end: number): number {
  const m = piece.length;
  const words = Math.ceil(m / 32);
  // Bit i of a character's mask: piece[i] is that character or `?`.
  const wildcard = new Uint32Array(words);
  for (let i = 0; i < m; i++) if (piece[i] === '?') wildcard[i >>> 5] |= 1 << (i & 31);
  // One mask per distinct character of the piece, found by char code; every other character has only the `?` bits.
  const masks = new Map<number, Uint32Array>();
  for (let i = 0; i < m; i++) {
    const c = piece[i];
    if (c === '?') continue;
    const code = piece.charCodeAt(i);
    let mask = masks.get(code);
    if (!mask) masks.set(code, (mask = Uint32Array.from(wildcard)));
    mask[i >>> 5] |= 1 << (i & 31);
  }
  const state = new Uint32Array(words);
  const last = words - 1;
  const lastBit = 1 << ((m - 1) & 31);
  for (let j = from; j < end; j++) {
    const mask = masks.get(text.charCodeAt(j)) ?? wildcard;
    let carry = 1;
    for (let w = 0; w < words; w++) {
      const word = state[w];
      state[w] = ((word << 1) | carry) & mask[w];
      carry = word >>> 31;
    }
    if (state[last] & lastBit) return j - m + 1;
  }
  return -1;
}
