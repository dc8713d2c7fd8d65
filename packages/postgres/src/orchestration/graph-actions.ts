import { sql, type Transaction } from 'kysely';
import { AppError } from '@inntak/core';
import { metadataWriteNeed, type Actor } from '@inntak/access';
import type { JsonObject } from '@inntak/graph';
import { DEFAULT_TTS_JOBS_PER_PERSON } from '@inntak/media';
import { checkOrchestrationNode, DEFAULT_ORCHESTRATIONS_PER_PERSON, type ActionInputs, type EventType } from '@inntak/orchestration';
import type { Database, Db } from '../platform/index.js';
import { createEdge, createNode, graphWrite, requireLevel, type NewNodeInput } from '../graph/index.js';
import { enqueueJob } from '../jobs/index.js';
import { requireSpeechRoom } from '../media/index.js';

type Trx = Transaction<Database>;

/** Where a run stands in its cascade: its depth, the root event, and the root's budget (017). */
export interface RunContext {
  depth: number;
  root: string;
  budget: number;
}

/**
 * Spends one of the root event's budget for an action a run is about to take; false when the
 * budget is used up (then nothing is spent, and the action must not run).
 */
export async function spendBudget(db: Db, run: RunContext): Promise<boolean> {
  const { rows } = await sql<{ ok: boolean }>`select inntak_orchestration_spend(${run.root}::uuid, ${run.budget}::integer) as ok`.execute(db);
  return rows[0]!.ok;
}

/**
 * The actions that write the graph, as the orchestration's creator: the same checked writes the
 * API uses, under the same write policy (packages/access/src/write-policy.ts), each in one transaction that carries the run's depth, so the events
 * they cause are known to come from an orchestration (db/migrations/011.do.orchestration.sql).
 */
export async function runGraphAction<A extends 'create_node' | 'create_edge' | 'set_metadata' | 'generate_tts'>(
  db: Db,
  actor: Actor & { personId: string },
  run: RunContext,
  action: A,
  input: ActionInputs[A],
  /** TTS_JOBS_PER_PERSON: the creator's tts_generate jobs at once (generate_tts counts against it as the API's does). */
  options: { ttsJobsPerPerson?: number } = {},
): Promise<JsonObject> {
  return graphWrite(db, async (trx) => {
    await sql`select set_config('inntak.orchestration_depth', ${String(run.depth)}, true),
                     set_config('inntak.orchestration_root', ${run.root}, true),
                     set_config('inntak.orchestration_budget', ${String(run.budget)}, true)`.execute(trx);
    switch (action) {
      case 'create_node':
        return await createNode(trx, actor, input as ActionInputs['create_node'], 'orchestration');
      case 'create_edge':
        return await createEdge(trx, actor, input as ActionInputs['create_edge']);
      case 'set_metadata':
        return await setMetadata(trx, actor, input as ActionInputs['set_metadata']);
      default: {
        const tts = input as ActionInputs['generate_tts'];
        // The speech becomes part of the node (its media): writing to it takes member.
        await requireLevel(trx, actor, tts.node_id, 'member', 'node_id');
        // The creator's jobs at once are capped as through the API: a script of many steps
        // queued one job each, past TTS_JOBS_PER_PERSON (second attack on issue 22).
        await requireSpeechRoom(trx, actor.personId, options.ttsJobsPerPerson ?? DEFAULT_TTS_JOBS_PER_PERSON);
        // The job carries the run's place in its cascade: the media it makes is an event of this
        // cascade, not a new root with a budget and depth of its own.
        const jobId = await enqueueJob(trx, 'tts_generate', {
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
async function setMetadata(trx: Trx, actor: Actor, input: ActionInputs['set_metadata']): Promise<JsonObject> {
  // Seeing the node comes first (404 otherwise), then its kind's rule.
  const node = await requireLevel(trx, actor, input.node_id, null, 'node_id');
  await requireLevel(trx, actor, input.node_id, metadataWriteNeed(actor, node.node_kind, input.key), 'node_id');
  await trx
    .updateTable('nodes')
    .set({ metadata: sql`metadata || jsonb_build_object(${input.key}::text, ${JSON.stringify(input.value)}::jsonb)` })
    .where('id', '=', input.node_id)
    .execute();
  return { node_id: input.node_id, key: input.key };
}

/**
 * Refuses a new orchestration to a person who has `cap` already (issue 22: each is matched on
 * writes, so their number is bounded). Called in the creating transaction, after a lock per person,
 * so concurrent creations cannot pass the cap together.
 */
export async function requireOrchestrationRoom(trx: Trx, personId: string, cap: number): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`inntak.orchestrations:${personId}`}, 0))`.execute(trx);
  const { rows } = await sql<{ n: number }>`
    select count(*)::integer as n
    from (select 1 from nodes where created_by = ${personId} and node_kind = 'orchestration' limit ${cap}) mine`.execute(trx);
  if (rows[0]!.n >= cap) {
    throw new AppError('conflict', { detail: `du har allerede ${cap} orkestreringer, og det er grensen per person` });
  }
}

/** create_node of an orchestration (already checked: withCheckedTrigger), within the creator's cap. */
export async function createOrchestration(
  db: Db,
  actor: Actor & { personId: string },
  input: NewNodeInput,
  cap: number,
): Promise<{ id: string; edge_ids: string[] }> {
  return graphWrite(db, async (trx) => {
    await requireOrchestrationRoom(trx, actor.personId, cap);
    return createNode(trx, actor, input);
  });
}

/**
 * A registered `cli_tool` node the creator may read (an access row or their own). Registering
 * one takes a system administrator (the write policy); a tool someone else made before that rule
 * (or a node turned into one) is not registered and does not run.
 */
export async function loadCliTool(db: Db, actor: Actor, toolId: string): Promise<JsonObject> {
  const node = await requireLevel(db, actor, toolId, 'reader', 'tool_id');
  if (node.node_kind !== 'cli_tool') throw new AppError('invalid_input', { detail: 'tool_id: noden er ikke et cli_tool' });
  const row = await db
    .selectFrom('nodes as n')
    .select(['n.metadata', sql<boolean>`exists (select 1 from system_admins a where a.node_id = n.created_by)`.as('registered')])
    .where('n.id', '=', toolId)
    .executeTakeFirstOrThrow();
  if (!row.registered) throw new AppError('forbidden', { detail: 'tool_id: verktøyet er ikke registrert av en systemadministrator' });
  return row.metadata;
}

/**
 * `inntak orchestration add`: an orchestration in a collection, observing it, made as the
 * collection's owner (an orchestration acts as its creator, and the operator at a shell is no
 * person). Node, belongs_to and observes edge commit together.
 */
export async function addCollectionOrchestration(
  db: Db,
  input: { collection_id: string; script: string; event: EventType; node_kind?: string; title?: string },
  cap: number = DEFAULT_ORCHESTRATIONS_PER_PERSON,
): Promise<{ id: string; owner_id: string; observes_edge_id: string; steps: number }> {
  const conditions = input.node_kind === undefined ? {} : { conditions: { node_kind: input.node_kind } };
  const { trigger, script } = checkOrchestrationNode({ metadata: { trigger: { event: input.event, ...conditions } }, content: input.script });
  const owner = await db
    .selectFrom('edges')
    .select('source_id')
    .where('target_id', '=', input.collection_id)
    .where('edge_type', '=', 'owner')
    .orderBy('created_at')
    .executeTakeFirst();
  if (!owner) throw new AppError('invalid_input', { detail: 'collection_id: samlingen har ingen eier å kjøre som' });
  const actor = { personId: owner.source_id, isAdmin: false };
  return graphWrite(db, async (trx) => {
    await requireOrchestrationRoom(trx, owner.source_id, cap);
    const node = await createNode(trx, actor, {
      node_kind: 'orchestration',
      title: input.title ?? `Orkestrering (${input.event})`,
      content: input.script,
      metadata: { trigger },
      collection_id: input.collection_id,
    });
    const edge = await createEdge(trx, actor, { source_id: node.id, target_id: input.collection_id, edge_type: 'observes' });
    return { id: node.id, owner_id: owner.source_id, observes_edge_id: edge.id, steps: script.steps.length };
  });
}

const UUID_IN_TEXT = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/**
 * True when an http_post URL holds the token of one of the service's own webhooks, however it is
 * spelled (letter case, percent-encoding, in the path or the query). Posting there would write
 * into the webhook's collection through intake, as a new root event with a budget and depth of
 * its own, so an orchestration posting each new node to its own collection's webhook never
 * stopped (second attack on issue 22). Writing into a collection is create_node's work.
 */
export async function postsToOwnWebhook(db: Db, url: string): Promise<boolean> {
  const spellings = new Set<string>([url]);
  let text = url;
  for (let i = 0; i < 3; i++) {
    try {
      text = decodeURIComponent(text);
    } catch {
      break;
    }
    spellings.add(text);
  }
  // Tokens are stored as made (lower case), and intake compares them exactly: the index on them answers.
  const tokens = [...new Set([...spellings].flatMap((s) => [...s.matchAll(UUID_IN_TEXT)].map((m) => m[0].toLowerCase())))];
  if (tokens.length === 0) return false;
  const { rows } = await sql<{ id: string }>`
    select id from nodes where node_kind = 'webhook' and metadata ->> 'token' = any(${tokens}::text[]) limit 1`.execute(db);
  return rows.length > 0;
}
