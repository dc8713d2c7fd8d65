import { describe, expect, it } from '@jest/globals';
import { AppError } from '@inntak/core';
import { cancelJob, listJobs, retryJob, updateRule } from './job-admin.js';
import type { JobAdminStore, JobAdminTx } from './ports.js';
import { defaultRule, type JobRecord, type JobRule, type JobStatus } from './types.js';

const ADMIN = { personId: 'p-admin', isAdmin: true };
const PERSON = { personId: 'p-1', isAdmin: false };

/** An in-memory job admin store recording the writes, each transaction applied only when it ends without an error. */
function memoryStore(statuses: Record<number, JobStatus>) {
  const jobs = new Map(Object.entries(statuses).map(([id, status]) => [Number(id), { id: Number(id), status } as JobRecord]));
  const rules = new Map<string, JobRule>();
  const writes: string[] = [];
  const store: JobAdminStore = {
    async transaction(work) {
      const pending: Array<() => void> = [];
      const tx: JobAdminTx = {
        jobStatus: async (id) => jobs.get(id)?.status,
        requeue: async (id) => void pending.push(() => (writes.push(`requeue ${id}`), (jobs.get(id)!.status = 'queued'))),
        removeWorkerJob: async (id) => void pending.push(() => writes.push(`remove ${id}`)),
        markCancelled: async (id) => void pending.push(() => (writes.push(`cancelled ${id}`), (jobs.get(id)!.status = 'cancelled'))),
        requestCancel: async (id) => void pending.push(() => writes.push(`cancel requested ${id}`)),
        rules: async () => new Map(rules),
        saveRule: async (rule) => void pending.push(() => (writes.push(`rule ${rule.jobType}`), rules.set(rule.jobType, rule))),
      };
      const result = await work(tx);
      for (const write of pending) write();
      return result;
    },
    listJobs: async () => ({ counts: { queued: 0, running: 0, completed: 0, failed: 0, cancelled: 0 }, jobs: [...jobs.values()], next_cursor: null }),
    getJob: async (id) => jobs.get(id),
    diskStatus: async () => ({ current: null, history: [] }),
    resourceFacts: async () => ({ running: [], queueDepth: {}, rules: [], rooms: [], disk: null, workers: [], usage: null }),
  };
  return { store, writes, rules };
}

describe('job admin use cases', () => {
  it('refuse anyone but a system administrator before touching the store', async () => {
    const { store, writes } = memoryStore({ 1: 'failed' });
    for (const attempt of [listJobs(store, PERSON, { limit: 10 }), retryJob(store, PERSON, 1), cancelJob(store, PERSON, 1), updateRule(store, PERSON, { jobType: 'x' })]) {
      await expect(attempt).rejects.toMatchObject({ code: 'forbidden' });
    }
    expect(writes).toEqual([]);
  });

  it('retry a failed job, cancel a queued one (removed) and a running one (asked to abort)', async () => {
    const { store, writes } = memoryStore({ 1: 'failed', 2: 'queued', 3: 'running' });
    expect(await retryJob(store, ADMIN, 1)).toMatchObject({ id: 1, status: 'queued' });
    expect(await cancelJob(store, ADMIN, 2)).toMatchObject({ id: 2, status: 'cancelled' });
    expect(await cancelJob(store, ADMIN, 3)).toMatchObject({ id: 3, status: 'running' });
    expect(writes).toEqual(['requeue 1', 'remove 2', 'cancelled 2', 'remove 3', 'cancel requested 3']);
  });

  it('answer 404 for a missing job and 409 for a wrong state, writing nothing', async () => {
    const { store, writes } = memoryStore({ 1: 'completed' });
    await expect(retryJob(store, ADMIN, 9)).rejects.toMatchObject({ code: 'not_found', detail: 'jobb 9' });
    await expect(cancelJob(store, ADMIN, 1)).rejects.toMatchObject({ code: 'job_wrong_state' });
    await expect(retryJob(store, ADMIN, 1)).rejects.toBeInstanceOf(AppError);
    expect(writes).toEqual([]);
  });

  it('update a rule from the default rule, keeping what the change leaves out, and refuse an invalid one', async () => {
    const { store, rules } = memoryStore({});
    expect(await updateRule(store, ADMIN, { jobType: 'rendering', cpuWeight: 4 })).toEqual({ ...defaultRule('rendering'), cpuWeight: 4 });
    expect(await updateRule(store, ADMIN, { jobType: 'rendering', maxConcurrent: 1, basePriority: undefined })).toEqual({ ...defaultRule('rendering'), cpuWeight: 4, maxConcurrent: 1 });
    await expect(updateRule(store, ADMIN, { jobType: 'rendering', cpuWeight: 99 })).rejects.toMatchObject({ code: 'invalid_input', detail: 'cpu_weight: må være et heltall fra 0 til 8' });
    expect(rules.get('rendering')?.cpuWeight).toBe(4);
  });
});
