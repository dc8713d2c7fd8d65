import { z } from 'zod';
import { isUuid } from '@inntak/core';
import { PermanentJobError } from './errors.js';

const Id = z.string().refine(isUuid, { message: 'expected a UUID' });

/**
 * Where an orchestration run stands in its cascade (017): the depth of the event it runs for, the
 * root event and that root's budget. A job an action queues carries it, so the writes the job
 * makes are events of the same cascade (depth + 1, the same root's budget), not new root events
 * (the second attack on issue 22: a TTS job without it let an orchestration reading its own media
 * aloud run forever).
 */
export const OrchestrationCascadeSchema = z.object({ depth: z.number().int().min(0), root: Id, budget: z.number().int().min(1) });
export type OrchestrationCascade = z.infer<typeof OrchestrationCascadeSchema>;

/**
 * Every job type's payload as a schema; the types below are derived from them. A worker checks
 * the payload against its type's schema before the body runs (parseJobPayload): a job queued
 * with a bad payload fails at once, naming the field, instead of failing deep inside its body on
 * every retry. Unknown keys are dropped (a crontab job carries `_cron`).
 */
export const JOB_PAYLOAD_SCHEMAS = {
  /** Re-runs a `belongs_to` edge's access propagation that failed during intake. */
  access_repair: z.object({ edge_id: Id }),
  /** Runs an orchestration's script for one event that matched its trigger (queued by 011.do.orchestration.sql). */
  orchestrate: z.object({
    orchestration_id: Id,
    event: z.object({
      type: z.enum(['node.created', 'edge.created', 'node.updated', 'manual', 'schedule']),
      id: Id,
      depth: z.number().int().min(0),
      /** node.updated: the keys that changed (023). */
      changes: z.array(z.string()).optional(),
      /** manual: run_orchestration's input object. */
      input: z.record(z.string(), z.json()).optional(),
      /** schedule: when the run was due. */
      scheduled_at: z.string().optional(),
    }),
    /** The root event of the cascade, whose budget the run spends (017); absent in jobs queued before it. */
    root: z.string().optional(),
    /** The run's row in orchestration_runs (023); absent in jobs queued before it (found by the job's id). */
    run_id: Id.optional(),
    /** A run queued again to wait for a step's retry (issue 35): the step, the attempt it makes now, a for_each's element. */
    retry: z.object({ step: z.number().int().min(1), attempt: z.number().int().min(2).max(5), index: z.number().int().min(0).optional() }).optional(),
  }),
  /** Reads a node's title and content aloud into a media node (docs/media.md). */
  tts_generate: z.object({
    node_id: Id,
    voice: z.string().optional(),
    rate: z.number().optional(),
    /** The person who asked (POST /intentions/generate_tts), counted against TTS_JOBS_PER_PERSON. */
    requested_by: z.string().optional(),
    /** The orchestration run that queued it (the action generate_tts): its media is an event of that cascade. */
    cascade: OrchestrationCascadeSchema.optional(),
  }),
  /** Mixes a room's mixer channels into a new audio media node of the room (docs/media.md, "Mixdown"). */
  render_mix: z.object({
    room_id: Id,
    /** Integrated loudness the mix is brought to, LUFS (−36 … −6; default −16). */
    target_lufs: z.number().min(-36).max(-6).optional(),
    /** The person who asked (POST /intentions/render_mix). */
    requested_by: z.string().optional(),
  }),
  /** Turns an audio media node into transcription segments (docs/media.md, "Transcription"). */
  speech_transcription: z.object({
    media_id: Id,
    /** The person who asked, when one did (an upload, POST /intentions/transcribe). */
    requested_by: z.string().optional(),
  }),
  /** One pruning run (crontab; `trigger` says which entry). Housekeeping, outside the governor. */
  prune: z.object({ trigger: z.string().optional() }),
} as const;

/**
 * Every job type's payload, typed once. graphile-worker sees them through declaration merging
 * (`Task<'access_repair'>`); the enqueue function through JobPayload.
 */
export type JobPayloads = { [T in keyof typeof JOB_PAYLOAD_SCHEMAS]: z.infer<(typeof JOB_PAYLOAD_SCHEMAS)[T]> };

export type JobPayload<T extends string> = T extends keyof JobPayloads ? JobPayloads[T] : Record<string, unknown>;

/** A job type without a schema of its own (tests' job types, types a later issue defines) takes any object. */
const ANY_OBJECT = z.record(z.string(), z.unknown());

/**
 * The payload checked against its job type's schema. A bad one throws a PermanentJobError naming
 * the job type, the field and the problem: retrying cannot fix it.
 */
export function parseJobPayload<T extends string>(jobType: T, payload: unknown): JobPayload<T> {
  const schema: z.ZodType = Object.hasOwn(JOB_PAYLOAD_SCHEMAS, jobType) ? JOB_PAYLOAD_SCHEMAS[jobType as keyof JobPayloads] : ANY_OBJECT;
  const result = schema.safeParse(payload ?? {});
  if (result.success) return result.data as JobPayload<T>;
  const issue = result.error.issues[0]!;
  const field = issue.path.length > 0 ? issue.path.join('.') : '(payload)';
  throw new PermanentJobError(`invalid ${jobType} payload: ${field}: ${issue.message}`);
}

declare global {
  namespace GraphileWorker {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface Tasks extends JobPayloads {}
  }
}
