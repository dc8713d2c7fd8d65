import type { JsonObject } from '@inntak/graph';

/**
 * Glossary (docs/orchestration.md):
 * - orchestration: a node of kind `orchestration`; `metadata.trigger` says which graph events
 *   start it, `content` holds its script (YAML).
 * - event: `node.created` or `edge.created`, as the realtime stream names them; the rows it is
 *   about are read as the orchestration's creator sees them.
 * - step: one action call; its fallback runs when it fails. The global fallback runs when a step
 *   and its own fallback both failed; then the run stops.
 * - log entry: one row per step, fallback and stop, with a status of LOG_STATUSES.
 * - depth: how many orchestration runs led to an event (0 for a person's own write); an event at
 *   MAX_DEPTH is not run but logged as skipped, so a script that triggers itself ends.
 * - root event: the person's write a cascade of runs comes from; its budget bounds the cascade's
 *   actions and queued runs, however wide (what exceeds it is logged as skipped).
 */

export const EVENT_TYPES = ['node.created', 'edge.created', 'node.updated', 'manual', 'schedule'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
/** The events a write causes, matched in the database (011, 017, 023); manual and schedule runs are started by their own operations. */
export const GRAPH_EVENT_TYPES = ['node.created', 'edge.created', 'node.updated'] as const;

export const ACTIONS = ['create_node', 'create_edge', 'set_metadata', 'generate_tts', 'http_post', 'run_cli_tool'] as const;
export type ActionName = (typeof ACTIONS)[number];

export const LOG_STATUSES = ['ok', 'failed', 'fallback_ok', 'fallback_failed', 'skipped'] as const;
export type LogStatus = (typeof LOG_STATUSES)[number];

/** Events caused by orchestrations deeper than this are skipped (logged), never run. */
export const MAX_DEPTH = 5;

/**
 * Actions (and runs they queue) one root event's whole cascade may take, unless ORCHESTRATION_BUDGET
 * says otherwise; the database's own default is the same (inntak_orchestration_default_budget()).
 */
export const DEFAULT_BUDGET = 100;

/** Orchestrations one person may have, unless ORCHESTRATIONS_PER_PERSON says otherwise. */
export const DEFAULT_ORCHESTRATIONS_PER_PERSON = 100;

/**
 * Runs one person may have asked for (run_orchestration, rerun_orchestration) that are queued or
 * running, unless ORCHESTRATION_RUNS_PER_PERSON says otherwise (issue 35): one login cannot fill
 * the queue ahead of everyone else.
 */
export const DEFAULT_ORCHESTRATION_RUNS_PER_PERSON = 5;

/** The per-person caps the API's orchestration routes hand the use cases (the API's config module fills them). */
export interface OrchestrationLimits {
  /** ORCHESTRATIONS_PER_PERSON: orchestrations one person may have (409 beyond). */
  perPerson: number;
  /** ORCHESTRATION_RUNS_PER_PERSON: runs one person asked for that may be queued or running (429 beyond). */
  runsPerPerson: number;
}

export const DEFAULT_ORCHESTRATION_LIMITS: OrchestrationLimits = { perPerson: DEFAULT_ORCHESTRATIONS_PER_PERSON, runsPerPerson: DEFAULT_ORCHESTRATION_RUNS_PER_PERSON };

export interface ActionCall {
  action: ActionName;
  /** The action's input; strings may hold `{variables}`. */
  with: JsonObject;
}

/** `retry` of an http_post step: attempts in all (2–5), the first wait in seconds, doubled each time. */
export interface Retry {
  attempts: number;
  backoff: number;
}

/**
 * The waits of one step's retries together (s) stay at most this: below the default job timeout
 * (600 s), so a run that retries still ends within about one job's time of its start.
 */
export const MAX_RETRY_WAIT_SECONDS = 300;

/** The wait before attempt `next` (2, 3 …) of a step with this retry, in ms: backoff, doubled each time. */
export function retryWaitMs(retry: Retry, next: number): number {
  return retry.backoff * 1000 * 2 ** (next - 2);
}

/** All the waits of a step's retries together, in seconds. */
export function retryWaitSeconds(retry: Retry): number {
  return retry.backoff * (2 ** (retry.attempts - 1) - 1);
}

/**
 * Where a run re-queued to wait for a retry picks up (the `retry` of the orchestrate job's
 * payload): the step, the attempt it makes now, and in a for_each the element (the outputs of
 * the elements before it are the step's output so far, kept on the run).
 */
export interface RetryPoint {
  step: number;
  attempt: number;
  index?: number;
}

export interface ActionStep extends ActionCall {
  fallback?: ActionCall;
  /** Run only when this holds; otherwise the step is logged as skipped with the reason. */
  when?: Condition;
  retry?: Retry;
  /** A `{variable}` holding an array: the action runs once per element, as `{item}` and `{index}`. */
  for_each?: string;
}

/** Ends the run early, without error, when the condition does not hold. */
export interface FilterStep {
  filter: Condition;
  when?: Condition;
}

export type Step = ActionStep | FilterStep;

export function isFilterStep(step: Step): step is FilterStep {
  return 'filter' in step;
}

export interface Script {
  steps: Step[];
  fallback?: ActionCall;
}

export interface TriggerConditions {
  node_kind?: string;
  edge_type?: string;
  has_trait?: string;
  /** Normalized (normalizeTag). */
  has_tag?: string;
}

export interface Trigger {
  event: EventType;
  conditions?: TriggerConditions;
  /** Conditions on content, checked when the run starts (a run they refuse is `filtered`). */
  where?: Condition;
  /** For `schedule`: five-field cron, UTC. */
  cron?: string;
}

/** What the job carries: which orchestration, and which row's event (read when it runs). */
export interface EventRef {
  type: EventType;
  /** The node (node.*), the edge (edge.created), or the run (manual, schedule). */
  id: string;
  depth: number;
  /** node.updated: the keys that changed (`title`, `metadata.status`, …). */
  changes?: string[];
  /** manual: the input object of run_orchestration. */
  input?: JsonObject;
  /** schedule: the time the run was due. */
  scheduled_at?: string;
}

/** The `{event.*}` variables: the event's rows as the orchestration's creator may read them. */
export type EventVariables =
  | { type: 'node.created'; node: JsonObject }
  | { type: 'node.updated'; node: JsonObject; changes: string[] }
  | { type: 'edge.created'; edge: JsonObject; source?: JsonObject; target?: JsonObject }
  | { type: 'manual'; input: JsonObject }
  | { type: 'schedule'; scheduled_at: string };

/** One row of the orchestration log, as the runner reports it. */
export interface StepRecord {
  /** 1-based step number; for the global fallback and the stop, the step that failed; null before any step. */
  step: number | null;
  action: ActionName | null;
  /** Which fallback this row is, if any. */
  fallback: 'step' | 'global' | null;
  status: LogStatus;
  output?: JsonObject;
  error?: string;
  duration_ms: number;
}

/** Thrown (or the cause of what is thrown) by an action port for a failure worth retrying: a timeout, no connection, a 5xx. */
export class RetryableActionError extends Error {}

/** The boundary to the world: runs one action, with input already resolved and validated. */
export interface ActionPort {
  run(action: ActionName, input: JsonObject, signal: AbortSignal): Promise<JsonObject>;
}

export type { JsonObject };

/**
 * Conditions on what happened (issue 27): a step's `when`, a `filter` step, and a trigger's
 * `where`. A comparison names one `{variable}` and one or more tests that must all hold;
 * `all`, `any` and `not` combine them. Every test costs at most linear time in the value: `matches`
 * is a glob (`*`, `?`), never a regular expression, over the first MATCH_TEXT_CAP characters.
 */
export type Condition =
  | { all: Condition[] }
  | { any: Condition[] }
  | { not: Condition }
  | Comparison;

export interface Comparison {
  /** Exactly one variable, e.g. `{event.node.metadata.status}`. */
  value: string;
  equals?: unknown;
  in?: unknown[];
  exists?: boolean;
  matches?: string;
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}
