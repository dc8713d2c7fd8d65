import type { Actor, GraphTx } from '@inntak/access';
import type { JsonObject } from '@inntak/graph';
import type { SpeechRoomTx } from '@inntak/media';
import type { EventRef, EventVariables, StepRecord } from './types.js';

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
  /** A page of the orchestration's log, newest first. */
  logPage(orchestrationId: string, page: { limit: number; before?: number }): Promise<{ entries: LogEntryView[]; next_cursor: number | null }>;
}

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
}
