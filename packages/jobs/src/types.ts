/**
 * Glossary
 * - job type: the name a job is queued and run under (`access_repair`, `orchestrate`, ...).
 * - rule: a job type's row in the priority rules table: base priority, CPU weight, how many may
 *   run at once, what a live room does to it, and its timeout.
 * - running set: the jobs of every worker process that the governor has admitted and that have
 *   not finished; the governor's limits hold over it, globally.
 * - live room: a live-room session; while one is active, some job types wait or rank lower.
 * - history: one row per job from queued to its end (job_queue); graphile-worker deletes
 *   completed jobs, the history keeps them.
 */

/** Job types that exist now; more arrive with their features. */
export const JOB_TYPES = ['access_repair', 'orchestrate', 'tts_generate'] as const;
export type KnownJobType = (typeof JOB_TYPES)[number];

export const JOB_STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface JobRule {
  jobType: string;
  /** graphile-worker order: numerically smaller runs first. */
  basePriority: number;
  cpuWeight: number;
  maxConcurrent: number;
  /** Added to the priority (so ranked later) while a live room is active. */
  livekitPriorityAdj: number;
  blockDuringLivekit: boolean;
  timeoutSeconds: number;
}

export interface GovernorLimits {
  maxRunning: number;
  maxWeight: number;
}

/** Spec, Limits: at most 3 running jobs, total CPU weight at most 8. */
export const DEFAULT_LIMITS: GovernorLimits = { maxRunning: 3, maxWeight: 8 };

export const DEFAULT_TIMEOUT_SECONDS = 600;

/** A job type without a rule is governed by this one. */
export function defaultRule(jobType: string): JobRule {
  return {
    jobType,
    basePriority: 0,
    cpuWeight: 1,
    maxConcurrent: DEFAULT_LIMITS.maxRunning,
    livekitPriorityAdj: 0,
    blockDuringLivekit: false,
    timeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
  };
}

export interface RunningJob {
  jobType: string;
  cpuWeight: number;
}

/** One job's history row (job_queue) as the domain sees it: numbers and dates, not wire text. */
export interface JobRecord {
  id: number;
  job_type: string;
  status: JobStatus;
  payload: unknown;
  priority: number;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  worker_id: string | null;
  worker_process: string | null;
  cpu_weight: number;
  queued_at: Date;
  run_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  cancel_requested_at: Date | null;
}
