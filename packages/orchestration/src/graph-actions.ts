import { AppError } from '@inntak/core';
import { createEdge, createNode, inTransaction, metadataWriteNeed, requireLevel, type Actor, type Caller, type NewNodeInput } from '@inntak/access';
import type { JsonObject } from '@inntak/graph';
import { DEFAULT_TTS_JOBS_PER_PERSON, requireSpeechRoom } from '@inntak/media';
import type { ActionInputs } from './actions.js';
import type { LogEntryView, OrchestrationStore, OrchestrationTx, RunContext } from './ports.js';
import { checkOrchestrationNode } from './trigger.js';
import { syncSchedule } from './schedule.js';
import { DEFAULT_ORCHESTRATIONS_PER_PERSON, type EventType } from './types.js';

/**
 * The actions that write the graph, as the orchestration's creator: the same checked writes the
 * API uses (packages/access), under the same write policy, each in one transaction that carries
 * the run's depth, so the events they cause are known to come from an orchestration
 * (db/migrations/011.do.orchestration.sql).
 */
export async function runGraphAction<A extends 'create_node' | 'create_edge' | 'set_metadata' | 'generate_tts'>(
  store: OrchestrationStore,
  actor: Actor & { personId: string },
  run: RunContext,
  action: A,
  input: ActionInputs[A],
  /** TTS_JOBS_PER_PERSON: the creator's tts_generate jobs at once (generate_tts counts against it as the API's does). */
  options: { ttsJobsPerPerson?: number } = {},
): Promise<JsonObject> {
  return store.transaction(async (tx) => {
    await tx.markRun(run);
    switch (action) {
      case 'create_node':
        return await createNode(inTransaction(tx), actor, input as ActionInputs['create_node'], 'orchestration');
      case 'create_edge':
        return await createEdge(inTransaction(tx), actor, input as ActionInputs['create_edge']);
      case 'set_metadata':
        return await setMetadata(tx, actor, input as ActionInputs['set_metadata']);
      default: {
        const tts = input as ActionInputs['generate_tts'];
        // The speech becomes part of the node (its media): writing to it takes member.
        await requireLevel(tx, actor, tts.node_id, 'member', 'node_id');
        // The creator's jobs at once are capped as through the API: a script of many steps
        // queued one job each, past TTS_JOBS_PER_PERSON (second attack on issue 22).
        await requireSpeechRoom(tx, actor.personId, options.ttsJobsPerPerson ?? DEFAULT_TTS_JOBS_PER_PERSON);
        // The job carries the run's place in its cascade: the media it makes is an event of this
        // cascade, not a new root with a budget and depth of its own (second attack on issue 22).
        const jobId = await tx.enqueueSpeech({
          node_id: tts.node_id,
          ...(tts.voice ? { voice: tts.voice } : {}),
          ...(tts.rate ? { rate: tts.rate } : {}),
          requested_by: actor.personId,
          cascade: { depth: run.depth, root: run.root, budget: run.budget },
        });
        return { job_id: jobId };
      }
    }
  });
}

/**
 * Who may change a node's metadata is the write policy's (metadataWriteNeed, by its kind): a
 * collection's settings take admin, a cli_tool a system administrator, and the kinds whose
 * metadata is a token, a trigger or a file are changed only by their own operations.
 */
async function setMetadata(tx: OrchestrationTx, actor: Actor, input: ActionInputs['set_metadata']): Promise<JsonObject> {
  // Seeing the node comes first (404 otherwise), then its kind's rule.
  const node = await requireLevel(tx, actor, input.node_id, null, 'node_id');
  await requireLevel(tx, actor, input.node_id, metadataWriteNeed(actor, node.node_kind, input.key), 'node_id');
  await tx.setMetadataKey(input.node_id, input.key, input.value);
  return { node_id: input.node_id, key: input.key };
}

/**
 * Refuses a new orchestration to a person who has `cap` already (issue 22: each is matched on
 * writes, so their number is bounded). Called in the creating transaction, under a lock per
 * person, so concurrent creations cannot pass the cap together.
 */
export async function requireOrchestrationRoom(tx: OrchestrationTx, personId: string, cap: number): Promise<void> {
  if ((await tx.countOrchestrations(personId, cap)) >= cap) {
    throw new AppError('conflict', { detail: `du har allerede ${cap} orkestreringer, og det er grensen per person` });
  }
}

/**
 * create_node of kind `orchestration`, within the creator's cap: the trigger and script are
 * checked first (the same 400 as validate_orchestration), and the trigger is stored normalized,
 * since the database matches on it.
 */
export async function createOrchestration(
  store: OrchestrationStore,
  actor: Actor & { personId: string },
  unchecked: NewNodeInput,
  cap: number,
): Promise<{ id: string; edge_ids: string[] }> {
  const { trigger } = checkOrchestrationNode(unchecked);
  const input = { ...unchecked, metadata: { ...unchecked.metadata, trigger } };
  return store.transaction(async (tx) => {
    await requireOrchestrationRoom(tx, actor.personId, cap);
    const created = await createNode(inTransaction(tx), actor, input);
    await syncSchedule(tx, created.id, trigger, unchecked.metadata?.enabled !== false);
    return created;
  });
}

/**
 * A registered `cli_tool` node the creator may read (an access row or their own). Registering
 * one takes a system administrator (the write policy); a tool someone else made before that rule
 * (or a node turned into one) is not registered and does not run.
 */
export async function loadCliTool(store: OrchestrationStore, actor: Actor, toolId: string): Promise<JsonObject> {
  return store.transaction(async (tx) => {
    const node = await requireLevel(tx, actor, toolId, 'reader', 'tool_id');
    if (node.node_kind !== 'cli_tool') throw new AppError('invalid_input', { detail: 'tool_id: noden er ikke et cli_tool' });
    const tool = await tx.cliTool(toolId);
    if (!tool.registered) throw new AppError('forbidden', { detail: 'tool_id: verktøyet er ikke registrert av en systemadministrator' });
    return tool.metadata;
  });
}

/**
 * `inntak orchestration add`: an orchestration in a collection, observing it, made as the
 * collection's owner (an orchestration acts as its creator, and the operator at a shell is no
 * person). Node, belongs_to and observes edge commit together. With `as` (the console's and
 * create_collection_orchestration's caller, issue 39) it is made as that person instead, under
 * the same write policy as create_node and create_edge (member in the collection to put a node
 * in it, the observes row for the edge); `conditions` are the trigger's (node_kind, edge_type,
 * has_trait, has_tag).
 */
export async function addCollectionOrchestration(
  store: OrchestrationStore,
  input: { collection_id: string; script: string; event: EventType; node_kind?: string; conditions?: JsonObject; title?: string; cron?: string; where?: JsonObject },
  cap: number = DEFAULT_ORCHESTRATIONS_PER_PERSON,
  as?: Actor & { personId: string },
): Promise<{ id: string; owner_id: string; observes_edge_id: string; steps: number }> {
  const given = { ...(input.conditions ?? {}), ...(input.node_kind === undefined ? {} : { node_kind: input.node_kind }) };
  const conditions = Object.keys(given).length === 0 ? {} : { conditions: given };
  const extra = { ...(input.cron !== undefined ? { cron: input.cron } : {}), ...(input.where !== undefined ? { where: input.where } : {}) };
  const { trigger, script } = checkOrchestrationNode({ metadata: { trigger: { event: input.event, ...conditions, ...extra } }, content: input.script });
  return store.transaction(async (tx) => {
    const ownerId = as?.personId ?? (await tx.firstOwner(input.collection_id));
    if (!ownerId) throw new AppError('invalid_input', { detail: 'collection_id: samlingen har ingen eier å kjøre som' });
    const actor = as ?? { personId: ownerId, isAdmin: false };
    await requireOrchestrationRoom(tx, ownerId, cap);
    const node = await createNode(inTransaction(tx), actor, {
      node_kind: 'orchestration',
      title: input.title ?? `Orkestrering (${input.event})`,
      content: input.script,
      metadata: { trigger },
      collection_id: input.collection_id,
    });
    const edge = await createEdge(inTransaction(tx), actor, { source_id: node.id, target_id: input.collection_id, edge_type: 'observes' });
    await syncSchedule(tx, node.id, trigger, true);
    return { id: node.id, owner_id: ownerId, observes_edge_id: edge.id, steps: script.steps.length };
  });
}

/**
 * An orchestration's log, newest first, for its administrators (admin or owner on it) and system
 * administrators; a caller who may not see it gets 404, like every write. Keyset pagination on
 * the row id.
 */
export async function readOrchestrationLog(
  store: OrchestrationStore,
  caller: Caller,
  orchestrationId: string,
  page: { limit: number; before?: number },
): Promise<{ entries: LogEntryView[]; next_cursor: number | null }> {
  return store.transaction(async (tx) => {
    const node = await requireLevel(tx, caller, orchestrationId, 'admin', 'id');
    if (node.node_kind !== 'orchestration') throw new AppError('not_found', { detail: 'id' });
    return tx.logPage(orchestrationId, page);
  });
}
