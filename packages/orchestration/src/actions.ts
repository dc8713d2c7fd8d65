import { z } from 'zod';
import { VISIBILITIES } from '@inntak/graph';
import { RATE_RANGE } from '@inntak/media';
import type { ActionName } from './types.js';

/**
 * Each action's input after its variables are resolved: what the action port receives. Before
 * saving, the same shapes are checked loosely (templateSchema): a field may still be a string
 * holding a variable.
 */
const Id = z.uuid();
const Json = z.json();
const JsonRecord = z.record(z.string(), Json);

export const ACTION_INPUTS = {
  create_node: z.strictObject({
    node_kind: z.string().min(1).max(100),
    title: z.string().max(1000).nullish(),
    content: z.string().max(1_000_000).nullish(),
    visibility: z.enum(VISIBILITIES).optional(),
    metadata: JsonRecord.optional(),
    collection_id: Id.optional(),
  }),
  create_edge: z.strictObject({
    source_id: Id,
    target_id: Id,
    edge_type: z.string().regex(/^[a-z][a-z0-9_]{0,62}$/, 'forventet et navn i snake_case'),
    metadata: JsonRecord.optional(),
  }),
  set_metadata: z.strictObject({
    node_id: Id,
    key: z.string().min(1).max(100),
    value: Json,
  }),
  generate_tts: z.strictObject({
    node_id: Id,
    voice: z.string().min(1).max(100).optional(),
    /** Words per minute, as tts_generate takes it (RATE_RANGE, 80–450): one unit from the script to the job. */
    rate: z.number().int().min(RATE_RANGE.min).max(RATE_RANGE.max).optional(),
  }),
  http_post: z.strictObject({
    url: z.url({ protocol: /^https?$/ }),
    body: Json.optional(),
    headers: z.record(z.string().regex(/^[A-Za-z0-9-]{1,100}$/, 'ugyldig headernavn'), z.string().max(4000)).optional(),
  }),
  run_cli_tool: z.strictObject({
    /** A node of kind `cli_tool`: metadata.command, optional metadata.args and metadata.timeout_seconds. */
    tool_id: Id,
    args: z.array(z.string().max(10_000)).max(100).optional(),
  }),
} satisfies Record<ActionName, z.ZodType>;

export type ActionInputs = { [A in ActionName]: z.output<(typeof ACTION_INPUTS)[A]> };

/** A string that holds at least one `{variable}`: its value is only known when the step runs. */
const VariableString = z.string().regex(/\{[A-Za-z_][A-Za-z0-9_.-]*\}/, 'forventet en verdi eller en {variabel}');

/** The input shape before resolution: every field may also be a string with a variable. */
export function templateSchema(action: ActionName): z.ZodType {
  const shape = ACTION_INPUTS[action].shape as Record<string, z.ZodType>;
  const loose = Object.fromEntries(
    Object.entries(shape).map(([key, field]) => {
      if (field instanceof z.ZodOptional || field instanceof z.ZodNullable) {
        const inner = (field as z.ZodOptional<z.ZodType>).unwrap();
        return [key, z.union([VariableString, inner]).nullish()];
      }
      return [key, z.union([VariableString, field])];
    }),
  );
  return z.strictObject(loose);
}
