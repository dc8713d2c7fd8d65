import { AppError } from '@inntak/core';
import { requireSystemAdmin, type Actor } from '@inntak/access';
import type { DiskStatus, JobAdminStore, JobAdminTx, JobList, JobListQuery, ResourceFacts } from './ports.js';
import type { LiveRoomStatus } from './live-room.js';
import { assertCancellable, assertRetryable } from './transitions.js';
import { validateRule } from './governor.js';
import { DEFAULT_LIMITS, defaultRule, type JobRecord, type JobRule, type JobStatus } from './types.js';

/**
 * The job admin's use cases (docs/jobs.md): system administrators only, for the API and the CLI
 * alike. The status checks run on the locked history row, in the transaction that changes it.
 */

export async function listJobs(store: JobAdminStore, actor: Actor, query: JobListQuery): Promise<JobList> {
  requireSystemAdmin(actor);
  return store.listJobs(query);
}

export async function getJob(store: JobAdminStore, actor: Actor, id: number): Promise<JobRecord> {
  requireSystemAdmin(actor);
  const job = await store.getJob(id);
  if (!job) throw new AppError('not_found', { detail: `jobb ${id}` });
  return job;
}

/** The job's status, its history row locked for the rest of the transaction; 404 when there is no such job. */
async function lockedStatus(tx: JobAdminTx, id: number): Promise<JobStatus> {
  const status = await tx.jobStatus(id, { forUpdate: true });
  if (!status) throw new AppError('not_found', { detail: `jobb ${id}` });
  return status;
}

/** Retry a failed or cancelled job: back to queued with its attempts reset. */
export async function retryJob(store: JobAdminStore, actor: Actor, id: number): Promise<JobRecord> {
  requireSystemAdmin(actor);
  await store.transaction(async (tx) => {
    assertRetryable(id, await lockedStatus(tx, id));
    await tx.requeue(id);
  });
  return getJob(store, actor, id);
}

/**
 * Cancel a queued job (removed from the queue) or a running one (its worker is told to abort;
 * the row turns cancelled when the job has stopped).
 */
export async function cancelJob(store: JobAdminStore, actor: Actor, id: number): Promise<JobRecord> {
  requireSystemAdmin(actor);
  await store.transaction(async (tx) => {
    const status = await lockedStatus(tx, id);
    assertCancellable(id, status);
    await tx.removeWorkerJob(id);
    if (status === 'queued') await tx.markCancelled(id);
    else await tx.requestCancel(id);
  });
  return getJob(store, actor, id);
}

export type RuleChange = { jobType: string } & Partial<Omit<JobRule, 'jobType'>>;

/** Changes (or adds) a rule; fields left out keep their value (or the default rule's). */
export async function updateRule(store: JobAdminStore, actor: Actor, change: RuleChange): Promise<JobRule> {
  requireSystemAdmin(actor);
  return store.transaction(async (tx) => {
    const base = (await tx.rules()).get(change.jobType) ?? defaultRule(change.jobType);
    const rule = { ...base, ...Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) } as JobRule;
    const problem = validateRule(rule, DEFAULT_LIMITS);
    if (problem) throw new AppError('invalid_input', { detail: problem });
    await tx.saveRule(rule);
    return rule;
  });
}

export async function diskStatus(store: JobAdminStore, actor: Actor, historyLimit = 100): Promise<DiskStatus> {
  requireSystemAdmin(actor);
  return store.diskStatus(historyLimit);
}

export interface ResourceStatus extends Omit<ResourceFacts, 'rooms'> {
  liveRoom: { active: boolean; rooms: ResourceFacts['rooms'] };
}

/** What runs, what waits, the rules, live rooms, disk, workers (GET /admin/resources). */
export async function resourceStatus(store: JobAdminStore, actor: Actor, liveRooms: LiveRoomStatus): Promise<ResourceStatus> {
  requireSystemAdmin(actor);
  const [{ rooms, ...facts }, active] = await Promise.all([store.resourceFacts(), liveRooms.isActive()]);
  return { ...facts, liveRoom: { active, rooms } };
}
