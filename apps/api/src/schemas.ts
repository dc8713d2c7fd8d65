import { z } from 'zod';
import { ACCESS_LEVELS } from '@inntak/access';
import { jsonProblem, textProblem, VISIBILITIES } from '@inntak/graph';

/** Shapes shared by several routes; each route's own request and response sit beside it. */
export const Id = z.uuid();
export const Visibility = z.enum(VISIBILITIES);
export const AccessLevel = z.enum(ACCESS_LEVELS);
export const TemplateId = z.string().min(1).max(100);
export const JsonObject = z.record(z.string(), z.unknown());
export const Timestamp = z.iso.datetime();
/** Bytes (a media file): a body documented by its media type, never parsed as JSON. */
export const Binary = z.string().meta({ format: 'binary' });

/**
 * Text and JSON a write stores: PostgreSQL refuses NUL and lone surrogates, and metadata has a
 * depth limit (docs/security.md), so both answer 400 naming the field instead of a 500.
 */
export function storableText<S extends z.ZodString>(schema: S) {
  return schema.refine((text) => textProblem(text) === null, { message: textProblem('\u0000')! });
}
export const StorableJsonObject = JsonObject.superRefine((value, ctx) => {
  const problem = jsonProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

/** create_variant's body; the console (studio-publications.ts) parses its form with it too. */
export const CreateVariantBody = z.strictObject({
  publication_id: Id,
  article_id: Id,
  variant_type: z.string().regex(/^[a-z][a-z0-9_-]{0,62}$/, 'forventet et kort navn i små bokstaver'),
  title: storableText(z.string().min(1).max(300)),
  teaser: storableText(z.string().max(1000)).nullish(),
  with_original: z
    .boolean()
    .optional()
    .describe('true: when no other variant of the type is in play, the article’s own title becomes the control (variant 1) and this one is tested against it at once (the console always asks for it)'),
});
