import { z } from 'zod';

/**
 * The pieces each app's config schema (apps/*\/src/config.ts) is built from: one zod schema per
 * environment variable, over its raw string (or absent). A piece's message leaves out the
 * variable's name; `parseEnv` puts it in front, so every refusal is one line naming the
 * variable: `PORT must be a port number from 0 to 65535; got "abc"`. An empty value counts as
 * unset, except where a piece says otherwise (a port).
 */
type Raw = string | undefined;
type Ctx = z.RefinementCtx<Raw>;

function refuse(ctx: Ctx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER as never;
}

const unset = (raw: Raw): raw is undefined | '' => raw === undefined || raw === '';

export const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const;

/** An integer from min to max (Number()'s reading of the text); no max: "of at least min". */
export function integer(fallback: number, min: number, max?: number) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (unset(raw)) return fallback;
      const value = Number(raw);
      if (Number.isInteger(value) && value >= min && value <= (max ?? Number.MAX_SAFE_INTEGER)) return value;
      return refuse(ctx, `${max === undefined ? `must be an integer of at least ${min}` : `must be an integer from ${min} to ${max}`}; got "${raw}"`);
    });
}

/** Digits only: "", "8.08e3" and "0x1f90" are mistakes, not ports (Number() would take them). */
export function port(fallback: number) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return fallback;
      const value = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
      return value >= 0 && value <= 65535 ? value : refuse(ctx, `must be a port number from 0 to 65535; got "${raw}"`);
    });
}

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** "25mb", "512kb", "1.5gb" or a plain byte count; undefined if it is none of them. */
export function sizeInBytes(raw: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(raw);
  return match ? Math.floor(Number(match[1]) * UNITS[(match[2] ?? 'b').toLowerCase()]!) : undefined;
}

/** A size like `1gb` (`fallback` is one too); with `max`, from 1 byte to that size. */
export function size(fallback: string, max?: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const text = unset(raw) ? fallback : raw;
      const bytes = sizeInBytes(text);
      if (bytes === undefined) return refuse(ctx, `must be a size like 25mb, 512kb or 1048576; got "${text}"`);
      if (max !== undefined && (bytes < 1 || bytes > sizeInBytes(max)!)) return refuse(ctx, `must be from 1 byte to ${max}; got "${text}"`);
      return bytes;
    });
}

/** One of a fixed set of words. */
export function oneOf<const T extends string>(values: readonly T[], fallback: T) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): T => {
      if (raw === undefined) return fallback;
      return (values as readonly string[]).includes(raw) ? (raw as T) : refuse(ctx, `must be one of ${values.join(', ')}; got "${raw}"`);
    });
}

export const logLevel = () => oneOf(LOG_LEVELS, 'info');

/** 1 (on) or 0 (off); unset is off. */
export function flag() {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => (unset(raw) || raw === '0' || raw === '1' ? raw === '1' : refuse(ctx, `must be 1 (on) or 0 (off); got "${raw}"`)));
}

export function isPostgresUrl(raw: string): boolean {
  return URL.canParse(raw) && ['postgres:', 'postgresql:'].includes(new URL(raw).protocol);
}

/** A PostgreSQL connection URL; `required` says why it must be set (otherwise: undefined when unset). */
export function postgresUrl(required?: string) {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (unset(raw)) return required === undefined ? undefined : refuse(ctx, required);
      return isPostgresUrl(raw) ? raw : refuse(ctx, 'must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database)');
    });
}

/** An absolute http(s) URL without a trailing slash, or undefined when unset (the app picks its default). */
export function httpUrl() {
  return z
    .string()
    .optional()
    .transform((raw, ctx) => {
      if (raw === undefined) return undefined;
      const url = raw.replace(/\/+$/, '');
      return URL.canParse(url) && /^https?:$/.test(new URL(url).protocol) ? url : refuse(ctx, `must be an absolute http(s) URL; got "${raw}"`);
    });
}

/** Comma-separated entries, trimmed, empty ones dropped (allow-lists). */
export function commaList() {
  return z
    .string()
    .optional()
    .transform((raw) =>
      (raw ?? '')
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== ''),
    );
}

/** Optional text: unset or empty is undefined. */
export function text() {
  return z
    .string()
    .optional()
    .transform((raw) => (unset(raw) ? undefined : raw));
}

/**
 * Parses the environment with an app's schema; the first refusal is thrown as one line that
 * starts with the variable's name.
 */
export function parseEnv<T>(schema: z.ZodType<T, Record<string, Raw>>, env: Record<string, Raw>): T {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new Error(issue.path.length > 0 ? `${issue.path.join('.')} ${issue.message}` : issue.message);
}
