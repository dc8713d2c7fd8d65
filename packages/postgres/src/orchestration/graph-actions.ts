import { OPERATOR, type Actor, type NewNodeInput } from '@inntak/access';
import type { JsonObject } from '@inntak/graph';
import * as orchestration from '@inntak/orchestration';
import type { ActionInputs, EventType, RunContext, RunView } from '@inntak/orchestration';
import type { Db } from '../platform/index.js';
import { PostgresOrchestrationStore } from './orchestration-store.js';

/**
 * Orchestration's use cases (packages/orchestration/src/graph-actions.ts) over this adapter, for
 * the callers that hold a database handle (the CLI, tests).
 */

export function spendBudget(db: Db, run: RunContext): Promise<boolean> {
  return new PostgresOrchestrationStore(db).spendBudget(run);
}

export function runGraphAction<A extends 'create_node' | 'create_edge' | 'set_metadata' | 'generate_tts'>(
  db: Db,
  actor: Actor & { personId: string },
  run: RunContext,
  action: A,
  input: ActionInputs[A],
): Promise<JsonObject> {
  return orchestration.runGraphAction(new PostgresOrchestrationStore(db), actor, run, action, input);
}

export function createOrchestration(db: Db, actor: Actor & { personId: string }, input: NewNodeInput, cap: number): Promise<{ id: string; edge_ids: string[] }> {
  return orchestration.createOrchestration(new PostgresOrchestrationStore(db), actor, input, cap);
}

export function loadCliTool(db: Db, actor: Actor, toolId: string): Promise<JsonObject> {
  return orchestration.loadCliTool(new PostgresOrchestrationStore(db), actor, toolId);
}

export function addCollectionOrchestration(
  db: Db,
  input: { collection_id: string; script: string; event: EventType; node_kind?: string; title?: string; cron?: string; where?: JsonObject },
  cap?: number,
): Promise<{ id: string; owner_id: string; observes_edge_id: string; steps: number }> {
  return orchestration.addCollectionOrchestration(new PostgresOrchestrationStore(db), input, cap);
}

/** The operator's management of orchestrations (`inntak orchestration …`): the use cases as OPERATOR. */
export function updateOrchestrationAsOperator(db: Db, id: string, change: { script?: string; title?: string }): Promise<{ id: string; steps: number; runs_as: string | null }> {
  return orchestration.updateOrchestration(new PostgresOrchestrationStore(db), OPERATOR, id, change);
}

export function setOrchestrationEnabledAsOperator(db: Db, id: string, enabled: boolean): Promise<{ id: string; enabled: boolean }> {
  return orchestration.setOrchestrationEnabled(new PostgresOrchestrationStore(db), OPERATOR, id, enabled);
}

export function deleteOrchestrationAsOperator(db: Db, id: string): Promise<{ id: string; deleted: true }> {
  return orchestration.deleteOrchestration(new PostgresOrchestrationStore(db), OPERATOR, id);
}

export function runOrchestrationAsOperator(db: Db, id: string, input: JsonObject): Promise<{ run_id: string; job_id: number }> {
  return orchestration.runOrchestration(new PostgresOrchestrationStore(db), OPERATOR, id, input);
}

export function rerunOrchestrationAsOperator(db: Db, runId: string): Promise<{ run_id: string; job_id: number }> {
  return orchestration.rerunOrchestration(new PostgresOrchestrationStore(db), OPERATOR, runId);
}

export function listOrchestrationRunsAsOperator(db: Db, id: string, limit: number): Promise<{ runs: RunView[]; next_cursor: string | null }> {
  return orchestration.listOrchestrationRuns(new PostgresOrchestrationStore(db), OPERATOR, id, { limit });
}

export function setOrchestrationSecretAsOperator(db: Db, id: string, name: string, value: string): Promise<{ id: string; name: string }> {
  return orchestration.setOrchestrationSecret(new PostgresOrchestrationStore(db), OPERATOR, id, name, value);
}

/** The schedule planner (the worker's orchestration_schedule task). */
export function planScheduledRuns(db: Db, now?: Date): Promise<number> {
  return orchestration.planScheduledRuns(new PostgresOrchestrationStore(db), now);
}
