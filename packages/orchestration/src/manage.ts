import { AppError } from '@inntak/core';
import { nodeKindRule, requireLevel, type AccessLevel, type Actor } from '@inntak/access';
import type { JsonObject } from '@inntak/graph';
import { requireOrchestrationRoom } from './graph-actions.js';
import type { OrchestrationStore, OrchestrationTx, RunView } from './ports.js';
import { nextRunAfter, syncSchedule } from './schedule.js';
import { checkOrchestrationNode } from './trigger.js';
import { DEFAULT_ORCHESTRATION_RUNS_PER_PERSON, DEFAULT_ORCHESTRATIONS_PER_PERSON, type EventRef, type Trigger } from './types.js';

/**
 * Managing an orchestration (issue 27): change its script or trigger, turn it off and on, delete
 * it, run it by hand, re-run a failed run, set a secret. Each takes admin on the orchestration
 * (its collection's admins, for one in a collection; the write policy's `orchestration` row), and
 * a caller who may not see it gets 404, like every write.
 */

/** What changing an orchestration takes: the write policy's `orchestration` row (admin). */
const MANAGE_NEED = nodeKindRule('orchestration').write as AccessLevel;

async function requireOrchestrationAdmin(tx: OrchestrationTx, actor: Actor, id: string): Promise<void> {
  // Seeing it comes first (404), then the level; a node of another kind is no orchestration (404).
  const node = await requireLevel(tx, actor, id, null, 'id');
  if (node.node_kind !== 'orchestration') throw new AppError('not_found', { detail: 'id' });
  await requireLevel(tx, actor, id, MANAGE_NEED, 'id');
}

/**
 * update_orchestration: a new script, trigger or title, checked as create_node checks them (the
 * same 400, with line and column), before anything is saved. Two rules keep a change from
 * widening what the orchestration sees or does beyond its editor's rights:
 * - it runs as whoever saved it last: an admin who is not its creator becomes the one it acts as
 *   (within their ORCHESTRATIONS_PER_PERSON), so nobody makes another person's rights run their
 *   script; the operator at a shell (no person) leaves it as it was;
 * - a new trigger takes admin on every node it observes, too (its scope).
 * A takeover also drops the orchestration's secrets (set_orchestration_secret): they are never
 * answered back, and a changed script must not be a way to read them.
 */
export async function updateOrchestration(
  store: OrchestrationStore,
  actor: Actor,
  id: string,
  change: { script?: string; trigger?: JsonObject; title?: string },
  cap: number = DEFAULT_ORCHESTRATIONS_PER_PERSON,
): Promise<{ id: string; steps: number; runs_as: string | null }> {
  return store.transaction(async (tx) => {
    await requireOrchestrationAdmin(tx, actor, id);
    const current = await tx.orchestrationNode(id);
    const { trigger, script } = checkOrchestrationNode({
      metadata: { trigger: change.trigger ?? current.metadata.trigger ?? null },
      content: change.script ?? current.content,
    });
    if (change.trigger !== undefined && JSON.stringify(trigger) !== JSON.stringify(current.metadata.trigger)) {
      for (const observed of await tx.observedBy(id)) await requireLevel(tx, actor, observed, 'admin', 'observes');
    }
    let runsAs = current.created_by;
    if (actor.personId !== null && actor.personId !== current.created_by) {
      await requireOrchestrationRoom(tx, actor.personId, cap);
      runsAs = actor.personId;
      // The secrets were set for the script of the one it ran as: kept, the new editor's script
      // would send them in an http_post header to a host of its choosing (on the allow-list, such
      // as this service's own intake, whose log they read). Whoever takes it over sets them anew.
      await tx.deleteSecrets(id);
    }
    await tx.updateOrchestrationNode(id, {
      content: change.script ?? current.content,
      metadata: { ...current.metadata, trigger },
      ...(change.title !== undefined ? { title: change.title } : {}),
      created_by: runsAs,
    });
    await syncSchedule(tx, id, trigger, current.metadata.enabled !== false);
    return { id, steps: script.steps.length, runs_as: runsAs };
  });
}

/**
 * set_orchestration_enabled: a disabled orchestration matches no event (it leaves the matching
 * index, 023), is not planned on its schedule, cannot be run by hand, and a run queued before it
 * was disabled is logged as skipped. Enabling it puts it back; events in between are not replayed.
 * Exported for the /studio console (issue 26).
 */
export async function setOrchestrationEnabled(store: OrchestrationStore, actor: Actor, id: string, enabled: boolean): Promise<{ id: string; enabled: boolean }> {
  return store.transaction(async (tx) => {
    await requireOrchestrationAdmin(tx, actor, id);
    const current = await tx.orchestrationNode(id);
    await tx.updateOrchestrationNode(id, { metadata: { ...current.metadata, enabled } });
    await syncSchedule(tx, id, (current.metadata.trigger as Trigger | undefined) ?? null, enabled);
    return { id, enabled };
  });
}

/**
 * delete_orchestration: the node and, with it, its edges, log, runs, schedule and secrets (the
 * log is the orchestration's: keeping it would keep event ids and outputs nobody administers).
 * Queued runs find it gone and end without a row.
 */
export async function deleteOrchestration(store: OrchestrationStore, actor: Actor, id: string): Promise<{ id: string; deleted: true }> {
  return store.transaction(async (tx) => {
    await requireOrchestrationAdmin(tx, actor, id);
    await tx.deleteOrchestrationNode(id);
    return { id, deleted: true };
  });
}

/** The largest input run_orchestration takes, as JSON (it travels in the job's payload and the log). */
export const MAX_RUN_INPUT_BYTES = 16 * 1024;

/**
 * run_orchestration: one run of a `manual` orchestration now, with `{event.input.*}` from the
 * caller's object; it acts as its creator like every run, and is its own root event (a fresh
 * budget). Input steers the script (an id it reads, a text it posts) with its creator's rights,
 * so only the one it runs as (or the operator at a shell) gives any, as for its secrets: another
 * administrator may run the creator's script as written, with no input, or take it over first
 * (update_orchestration) and then run it as themselves.
 */
export async function runOrchestration(store: OrchestrationStore, actor: Actor, id: string, input: JsonObject, runsPerPerson = DEFAULT_ORCHESTRATION_RUNS_PER_PERSON): Promise<{ run_id: string; job_id: number }> {
  if (Buffer.byteLength(JSON.stringify(input)) > MAX_RUN_INPUT_BYTES) {
    throw new AppError('invalid_input', { detail: `input: høyst ${MAX_RUN_INPUT_BYTES} byte som JSON` });
  }
  return store.transaction(async (tx) => {
    await requireOrchestrationAdmin(tx, actor, id);
    const current = await tx.orchestrationNode(id);
    const trigger = current.metadata.trigger as Trigger | undefined;
    if (trigger?.event !== 'manual') throw new AppError('conflict', { detail: 'orkestreringen startes ikke for hånd (trigger.event er ikke manual)' });
    if (current.metadata.enabled === false) throw new AppError('conflict', { detail: 'orkestreringen er slått av' });
    if (Object.keys(input).length > 0 && actor.personId !== null && actor.personId !== current.created_by) throw new AppError('input_other_actor');
    await requireRunRoom(tx, actor, runsPerPerson);
    return tx.queueRun(id, (runId) => ({ type: 'manual', id: runId, depth: 0, input }), undefined, requestedBy(actor));
  });
}

/**
 * rerun_orchestration: a failed (stopped) run again, from the step that failed, with the same
 * event and the outputs the steps before it had. A new run (rerun_of names the first) and its own
 * root event, so it has a fresh budget; only a run that stopped at a step can be re-run, and only
 * while the orchestration runs as the one that run acted as (issue 35, finding 2): an admin who
 * took it over must not feed the first run's outputs (a server's answers to the creator's
 * requests) to their own script. The worker checks it again when the run starts (sameRunner).
 */
export async function rerunOrchestration(
  store: OrchestrationStore,
  actor: Actor,
  runId: string,
  runsPerPerson = DEFAULT_ORCHESTRATION_RUNS_PER_PERSON,
  from: RerunFrom = 'failed_step',
): Promise<{ run_id: string; job_id: number }> {
  return store.transaction(async (tx) => {
    const run = await tx.runRow(runId);
    if (!run) throw new AppError('not_found', { detail: 'run_id' });
    await requireOrchestrationAdmin(tx, actor, run.orchestration_id);
    if (from === 'start' && (run.status === 'queued' || run.status === 'running')) {
      throw new AppError('conflict', { detail: `bare en ferdig kjøring kan kjøres på nytt (denne er ${run.status === 'queued' ? 'i kø' : 'i gang'})` });
    }
    if (from === 'failed_step' && (run.status !== 'stopped' || run.failed_step === null)) {
      throw new AppError('conflict', { detail: `bare en kjøring som stoppet ved et steg kan kjøres igjen (denne er ${run.status})` });
    }
    const current = await tx.orchestrationNode(run.orchestration_id);
    if (!sameRunner(run.runs_as, current.created_by)) throw new AppError('rerun_other_actor');
    if (current.metadata.enabled === false) throw new AppError('conflict', { detail: 'orkestreringen er slått av' });
    await requireRunRoom(tx, actor, runsPerPerson);
    const state = from === 'start' ? { fromStep: 1, outputs: {} } : { fromStep: run.failed_step!, outputs: run.outputs };
    return tx.queueRun(run.orchestration_id, () => run.event, { rerunOf: run.id, ...state }, requestedBy(actor));
  });
}

/**
 * Where a re-run starts: at the step that failed, with the outputs before it (a stopped run), or
 * (issue 39) from the first step with the same event or input and no outputs, for any run that
 * has ended. Both are new runs naming the first (rerun_of), and both only while the
 * orchestration runs as the one the first run acted as (its event was read as that person).
 */
export type RerunFrom = 'failed_step' | 'start';

/**
 * An orchestration as its administrators edit it (the console's script page, GET
 * /admin/orchestrations/{id}): the script, trigger and whether it is on. Admin on it, as every
 * change; a caller who may not see it gets 404.
 */
export async function readOrchestration(
  store: OrchestrationStore,
  actor: Actor,
  id: string,
): Promise<{ id: string; title: string | null; script: string; trigger: Trigger | null; enabled: boolean; runs_as: string | null }> {
  return store.transaction(async (tx) => {
    await requireOrchestrationAdmin(tx, actor, id);
    const node = await tx.orchestrationNode(id);
    return { id, title: node.title, script: node.content, trigger: (node.metadata.trigger as Trigger | undefined) ?? null, enabled: node.metadata.enabled !== false, runs_as: node.created_by };
  });
}

/**
 * Whether a re-run of a run that acted as `runAs` may act as `runsAsNow` with its outputs: only
 * as the same person. A run from before 028 (null: nobody knows whom its outputs were for) never.
 */
export function sameRunner(runAs: string | null | undefined, runsAsNow: string | null): boolean {
  return runAs != null && runAs === runsAsNow;
}

/**
 * Refuses (429 orchestration_runs_busy) a person who has `cap` runs they asked for queued or
 * running (issue 35: three manual runs of one login held every worker slot). The count and the
 * queueing share the person's lock to the end of the transaction, so parallel requests cannot
 * all slip under it. The operator (CLI, no person) is not counted.
 */
async function requireRunRoom(tx: OrchestrationTx, actor: Actor, cap: number): Promise<void> {
  if (!actor.personId) return;
  if ((await tx.countActiveRuns(actor.personId, cap)) >= cap) throw new AppError('orchestration_runs_busy', { detail: `høyst ${cap} om gangen` });
}

const requestedBy = (actor: Actor) => (actor.personId ? { requestedBy: actor.personId } : {});

/** GET /admin/orchestrations/{id}/runs: newest first, with status and duration. */
export async function listOrchestrationRuns(
  store: OrchestrationStore,
  actor: Actor,
  id: string,
  page: { limit: number; before?: string },
): Promise<{ runs: RunView[]; next_cursor: string | null }> {
  return store.transaction(async (tx) => {
    await requireOrchestrationAdmin(tx, actor, id);
    const runs = await tx.runsPage(id, { limit: page.limit + 1, before: page.before });
    return { runs: runs.slice(0, page.limit), next_cursor: runs.length > page.limit ? runs[page.limit - 1]!.id : null };
  });
}

/**
 * set_orchestration_secret: stored apart from the script, never answered back; `{secrets.NAME}` in
 * http_post headers. Setting it again replaces it. Only the one it runs as sets them (or the
 * operator): a co-admin who swapped in their own token would receive what the script, running as
 * its creator, reads of collections hidden from them (found attacking the merged result of issue
 * 35). A co-admin takes it over first (update_orchestration, which drops the secrets).
 */
export async function setOrchestrationSecret(store: OrchestrationStore, actor: Actor, id: string, name: string, value: string): Promise<{ id: string; name: string }> {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name)) throw new AppError('invalid_input', { detail: 'name: bokstaver, sifre og _, høyst 64 tegn' });
  if (value.length === 0 || value.length > 4000) throw new AppError('invalid_input', { detail: 'value: 1–4000 tegn' });
  return store.transaction(async (tx) => {
    await requireOrchestrationAdmin(tx, actor, id);
    if (actor.personId !== null && actor.personId !== (await tx.orchestrationNode(id)).created_by) throw new AppError('secret_other_actor');
    await tx.setSecret(id, name, value);
    return { id, name };
  });
}

/**
 * The planner (the `orchestration_schedule` crontab task, every minute): queues one run of each
 * scheduled orchestration that is due, as its creator, and sets its next time from now, so a
 * service that was down for hours runs each once, not once per missed minute.
 */
export async function planScheduledRuns(store: OrchestrationStore, now = new Date(), limit = 500): Promise<number> {
  return store.transaction(async (tx) => {
    const due = await tx.dueSchedules(now, limit);
    for (const { orchestration_id, cron, next_at } of due) {
      await tx.queueRun(orchestration_id, (runId) => ({ type: 'schedule', id: runId, depth: 0, scheduled_at: next_at.toISOString() }));
      const next = nextRunAfter(cron, now);
      await tx.setSchedule(orchestration_id, next ? { cron, nextAt: next } : null);
    }
    return due.length;
  });
}

export type { EventRef };
