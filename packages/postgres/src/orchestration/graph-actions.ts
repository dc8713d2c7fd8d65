import type { Actor, NewNodeInput } from '@inntak/access';
import type { JsonObject } from '@inntak/graph';
import * as orchestration from '@inntak/orchestration';
import type { ActionInputs, EventType, RunContext } from '@inntak/orchestration';
import type { Db } from '../platform/index.js';
import { PostgresOrchestrationStore } from './orchestration-store.js';

/**
 * Orchestration's use cases over this adapter with a database handle, left for tests' scenes and
 * the bench; production binds the use cases to PostgresOrchestrationStore in its composition roots.
 */

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

export function addCollectionOrchestration(
  db: Db,
  input: { collection_id: string; script: string; event: EventType; node_kind?: string; title?: string; cron?: string; where?: JsonObject },
  cap?: number,
): Promise<{ id: string; owner_id: string; observes_edge_id: string; steps: number }> {
  return orchestration.addCollectionOrchestration(new PostgresOrchestrationStore(db), input, cap);
}
