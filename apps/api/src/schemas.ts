import { z } from 'zod';
import { ACCESS_LEVELS } from '@inntak/access';
import { jsonProblem, textProblem, VISIBILITIES } from '@inntak/graph';
import { PAGE_LANGUAGES } from '@inntak/publishing';
import { DEFAULT_LIMITS, type RuleChange } from '@inntak/jobs';

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

/** update_variant's body (the console's variant edit form parses with it too). */
export const UpdateVariantBody = z.strictObject({
  edge_id: Id,
  title: storableText(z.string().min(1).max(300)).optional(),
  teaser: storableText(z.string().max(1000)).nullish(),
});

/** update_publication's body (and the console's settings form). */
export const UpdatePublicationBody = z.strictObject({
  publication_id: Id,
  title: storableText(z.string().min(1).max(300)).optional(),
  about: storableText(z.string().max(20_000)).optional(),
  language: z.enum(PAGE_LANGUAGES).optional().describe("nb or en: the language of the pages' chrome and dates"),
});

/** create_publication's body (the console's form parses with it too). */
export const CreatePublicationBody = z.strictObject({
  title: storableText(z.string().min(1).max(300)),
  slug: storableText(z.string().min(1).max(63)),
  about: storableText(z.string().max(20_000)).optional(),
  domains: z.array(storableText(z.string().min(1).max(253))).max(20).optional(),
  language: z.enum(PAGE_LANGUAGES).optional().describe("nb (default) or en: the language of the pages' chrome and dates"),
});

/** update_node's body (the console's article editor parses with it too). */
export const UpdateNodeBody = z.strictObject({
  node_id: Id,
  title: storableText(z.string().max(1000)).nullish(),
  content: storableText(z.string()).nullish(),
});

/** update_rule's body (the console's rule form parses with it too: the same bounds). */
export const UpdateRuleBody = z.strictObject({
  job_type: z.string().regex(/^[a-z][a-z0-9_]{0,62}$/),
  base_priority: z.number().int().min(-32767).max(32767).optional(),
  cpu_weight: z.number().int().min(0).max(DEFAULT_LIMITS.maxWeight).optional(),
  max_concurrent: z.number().int().min(0).max(DEFAULT_LIMITS.maxRunning).optional(),
  livekit_priority_adj: z.number().int().min(-32767).max(32767).optional(),
  block_during_livekit: z.boolean().optional(),
  timeout: z.number().int().min(1).max(86400).optional().describe('seconds'),
});

/** update_rule's body as the use case takes it (the route and the console's rule form). */
export function ruleChangeOf(body: z.output<typeof UpdateRuleBody>): RuleChange {
  return {
    jobType: body.job_type,
    basePriority: body.base_priority,
    cpuWeight: body.cpu_weight,
    maxConcurrent: body.max_concurrent,
    livekitPriorityAdj: body.livekit_priority_adj,
    blockDuringLivekit: body.block_during_livekit,
    timeoutSeconds: body.timeout,
  };
}
