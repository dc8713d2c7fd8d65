import type { z } from 'zod';
import { AppError } from '@inntak/core';

/**
 * Parses request input with a route's zod schema. A failure is 400 invalid_input with the first
 * problem as `<field>: <problem>`, e.g. "Ugyldig forespørsel: limit: Too big: expected number to be <=100".
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.length > 0 ? issue.path.join('.') : 'keys' in issue ? issue.keys.join(', ') : 'input';
  throw new AppError('invalid_input', { detail: `${field}: ${issue.message}` });
}
