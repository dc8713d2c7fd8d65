import type { Actor, GraphTx } from '@inntak/access';
import type { JsonObject } from '@inntak/graph';
import type { SpeechRoomTx } from '@inntak/media';
import type { EventRef, EventVariables, StepRecord, Trigger } from './types.js';

/**
 * Orchestration's port: the graph's write port (packages/access/src/ports.ts) with what a run
 * adds to a transaction, and the run's reads and log. packages/postgres implements it
 * (src/orchestration/orchestration-store.ts); the use cases are graph-actions.ts.
 */

/** Where a run stands in its cascade: its depth, the root event, and the root's budget (017). */
export interface RunContext {
  depth: number;
  root: string;
  budget: number;
}

export interface OrchestrationToRun {
  id: string;
  script: string;
  /** metadata.trigger as saved (its `where` is checked when a run starts). */
  trigger: Trigger | null;
  /** metadata.enabled is not false. */
  enabled: boolean;
  /** The creator, with their own access: the orchestration acts as them. */
  actor: Actor & { personId: string };
}

/** One row of the log as it is read back: the runner's record, with its job, event and time. */
export interface LogEntryView extends StepRecord {
  id: number;
  job_id: number | null;
  event: EventRef;
  at: string;
}

/** A run's transaction: the graph's writes, the TTS job limit's count (as the API's, packages/media), and what a run adds. */
export interface OrchestrationTx extends GraphTx, SpeechRoomTx {
  /** Marks the transaction with the run, so the events its writes cause are known to come from it (011, 017). */
  markRun(run: RunContext): Promise<void>;
  /** Takes the person's orchestration lock (to the end of the transaction), then counts their orchestrations up to `cap`. */
  countOrchestrations(personId: string, cap: number): Promise<number>;
  /** Sets one key of the node's metadata. */
  setMetadataKey(nodeId: string, key: string, value: unknown): Promise<void>;
  /** Queues a tts_generate job in this transaction: its id. */
  enqueueSpeech(payload: { node_id: string; voice?: string; rate?: number; requested_by?: string; cascade?: RunContext }): Promise<number>;
  /** The cli_tool's metadata, and whether a system administrator made it. */
  cliTool(toolId: string): Promise<{ metadata: JsonObject; registered: boolean }>;
  /** The first owner of the node (by the owner edge's age). */
  firstOwner(nodeId: string): Promise<string | undefined>;
  /** The orchestration's row, locked for the change (`for update`). */
  orchestrationNode(id: string): Promise<{ content: string; metadata: JsonObject; created_by: string | null; title: string | null }>;
  updateOrchestrationNode(id: string, change: { content?: string; metadata?: JsonObject; title?: string; created_by?: string | null }): Promise<void>;
  /** The nodes its observes edges point at. */
  observedBy(id: string): Promise<string[]>;
  deleteOrchestrationNode(id: string): Promise<void>;
  /** Sets (or with null removes) when a scheduled orchestration is next due. */
  setSchedule(id: string, schedule: { cron: string; nextAt: Date } | null): Promise<void>;
  /** Scheduled orchestrations due at `now` (locked, skipping ones another planner holds). */
  dueSchedules(now: Date, limit: number): Promise<Array<{ orchestration_id: string; cron: string; next_at: Date }>>;
  /** Inserts a run and queues its orchestrate job in this transaction; `event` gets the new run's id. */
  queueRun(
    orchestrationId: string,
    event: (runId: string) => EventRef,
    rerun?: { rerunOf: string; fromStep: number; outputs: Record<string, JsonObject> },
    options?: { requestedBy?: string },
  ): Promise<{ run_id: string; job_id: number }>;
  /**
   * Takes the person's run lock (to the end of the transaction), then counts the runs they asked
   * for (run_orchestration, rerun_orchestration) that are queued or running, up to `cap`.
   */
  countActiveRuns(personId: string, cap: number): Promise<number>;
  /** A run's row; `runs_as`: the person it acted as (null before it started, or for a run from before 028). */
  runRow(
    runId: string,
  ): Promise<{ id: string; orchestration_id: string; status: RunStatus; event: EventRef; failed_step: number | null; outputs: Record<string, JsonObject>; runs_as: string | null } | undefined>;
  runsPage(orchestrationId: string, page: { limit: number; before?: string }): Promise<RunView[]>;
  setSecret(id: string, name: string, value: string): Promise<void>;
  /** Drops every secret of the orchestration (a takeover by another admin: manage.ts). */
  deleteSecrets(id: string): Promise<void>;
  /** A page of the orchestration's log, newest first. */
  logPage(orchestrationId: string, page: { limit: number; before?: number }): Promise<{ entries: LogEntryView[]; next_cursor: number | null }>;
}

/** Which run a job is: its run row (023), or for a job queued before 023 the job's id. */
export interface RunRef {
  runId?: string;
  jobId: number;
}

export type RunStatus = 'queued' | 'running' | 'completed' | 'filtered' | 'stopped' | 'failed' | 'skipped';

/** One run, as listed (GET /admin/orchestrations/{id}/runs). */
export interface RunView {
  id: string;
  job_id: number | null;
  status: RunStatus;
  event: EventRef;
  failed_step: number | null;
  rerun_of: string | null;
  from_step: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  /** Each attempt of a step that failed and was tried again (a `retry`), oldest first: at most MAX_RUN_ATTEMPTS_KEPT, the newest. */
  attempts: RunAttempt[];
  /** Times the run's job died with its worker and the run was taken up again (033). */
  lost_workers: number;
}

/** A failed attempt of a step with `retry`, kept on the run (039): the job it ran in and why it failed. */
export interface RunAttempt {
  step: number;
  /** 1-based: the attempt that failed (the next one is attempt + 1). */
  attempt: number;
  /** for_each: the element that failed. */
  index?: number;
  error: string;
  at: string;
  job_id: number;
}

/** A run keeps its newest this many failed attempts (a for_each of 1,000 elements could retry each). */
export const MAX_RUN_ATTEMPTS_KEPT = 50;

export interface OrchestrationStore {
  /** One transaction, retried whole on a deadlock like the graph's (GraphStore.transaction). */
  transaction<T>(work: (tx: OrchestrationTx) => Promise<T>): Promise<T>;
  /** Spends one of the root event's budget; false when it is used up (then nothing is spent). */
  spendBudget(run: RunContext): Promise<boolean>;
  /** The orchestration a job names, or undefined when it (or its creator) is gone. */
  loadOrchestration(orchestrationId: string): Promise<OrchestrationToRun | undefined>;
  /** The `{event.*}` variables as the reader may read them now, or why the run is skipped. */
  loadEventVariables(readerId: string, ref: EventRef): Promise<{ event: EventVariables } | { skipped: string }>;
  recordLogEntry(entry: { orchestrationId: string; jobId: number | null; event: EventRef; record: StepRecord }): Promise<void>;
  /** True when one of the (lower-case) tokens is a webhook's token (own-webhooks.ts). */
  isWebhookToken(tokens: string[]): Promise<boolean>;
  /**
   * Marks the run running as `runsAs`; where a re-run starts, the outputs it starts with and, for a
   * re-run, whom the run it re-runs acted as (undefined: no row, a job from before 023).
   */
  startRun(ref: RunRef, runsAs: string): Promise<{ fromStep: number; outputs: Record<string, JsonObject>; rerunOfRunsAs?: string | null; previousRunsAs: string | null } | undefined>;
  finishRun(ref: RunRef, result: { status: RunStatus; failedStep?: number; outputs?: Record<string, JsonObject> }): Promise<void>;
  /**
   * The run goes back to `queued` with the outputs so far, and a new orchestrate job with
   * `payload` is queued to start at `runAt` (graphile-worker's run_at): a retry's wait holds no
   * worker slot (issue 35). Answers the new job's id.
   */
  requeueRun(ref: RunRef, next: { payload: JsonObject; runAt: Date; outputs: Record<string, JsonObject>; failed: Omit<RunAttempt, 'at'> }): Promise<number>;
  /** The orchestration's secrets by name: for the worker only, never answered by a route. */
  secretsOf(orchestrationId: string): Promise<Map<string, string>>;
}
