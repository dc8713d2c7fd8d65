import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { AppError } from '@inntak/core';
import { effectivePriority } from '@inntak/jobs';
import { openTestDatabase, type OpenTestDatabase } from '../testing/index.js';
import { enqueueJob, loadRules, newWorkerProcess, reconcileDeadWorkers, registerWorker, startJob } from './job-store.js';
import { cancelJob, getJob, listJobs, retryJob, updateRule } from './job-admin.js';
import { recordDiskStatus } from './resource-log.js';
import { startLiveRoom } from './live-rooms.js';

let database: OpenTestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.dispose());

async function graphileJob(historyId: number) {
  const { rows } = await sql<{ id: string; flags: Record<string, boolean>; priority: number; attempts: number; locked_by: string | null }>`
    select id, flags, priority, attempts, locked_by from graphile_worker.jobs where key = ${`inntak:${historyId}`}`.execute(database.db);
  return rows[0];
}

describe('job queue on PostgreSQL', () => {
  it('enqueueJob writes the history row and a flagged graphile-worker job in the same transaction', async () => {
    const id = await enqueueJob(database.db, 'tts_generate', { node_id: 'n1' });
    const job = await getJob(database.db, id);
    expect(job).toMatchObject({ job_type: 'tts_generate', status: 'queued', attempts: 0, priority: 5 });
    expect(await graphileJob(id)).toMatchObject({ flags: { tts_generate: true }, priority: 5 });

    await expect(
      database.db.transaction().execute(async (trx) => {
        await enqueueJob(trx, 'tts_generate', { node_id: 'n2', voice: 'rolled back' });
        throw new Error('write failed');
      }),
    ).rejects.toThrow('write failed');
    const { rows } = await sql<{ n: string }>`select count(*) as n from job_queue where payload->>'node_id' = 'n2'`.execute(database.db);
    expect(rows[0]!.n).toBe('0');
  });

  it('a live room ranks a job later by its rule', async () => {
    await startLiveRoom(database.db, 'room-1');
    const id = await enqueueJob(database.db, 'rendering', {});
    expect((await getJob(database.db, id)).priority).toBe(10 + 20);
    // The SQL enqueue path and the domain's priority rule agree for every seeded rule.
    for (const rule of (await loadRules(database.db)).values()) {
      const live = await enqueueJob(database.db, rule.jobType, {});
      expect((await getJob(database.db, live)).priority).toBe(effectivePriority(rule, true));
    }
    await sql`delete from live_rooms`.execute(database.db);
    for (const rule of (await loadRules(database.db)).values()) {
      const quiet = await enqueueJob(database.db, rule.jobType, {});
      expect((await getJob(database.db, quiet)).priority).toBe(effectivePriority(rule, false));
    }
  });

  it('startJob hands a job over the limits back to the queue without counting the attempt', async () => {
    await sql`delete from graphile_worker._private_jobs`.execute(database.db);
    await updateRule(database.db, { jobType: 'solo', maxConcurrent: 1 });
    const worker = newWorkerProcess();
    const first = await enqueueJob(database.db, 'solo', {});
    const second = await enqueueJob(database.db, 'solo', {});
    const start = async (id: number) => {
      const job = (await graphileJob(id))!;
      return startJob(database.db, worker, { workerJobId: job.id, jobType: 'solo', payload: {}, attempts: 1, maxAttempts: 25, workerId: 'w1' }, { liveRoomActive: false, deferMs: 100 });
    };
    expect(await start(first)).toMatchObject({ kind: 'admitted', historyId: first });
    expect(await start(second)).toMatchObject({ kind: 'deferred', historyId: second, reason: '1 solo jobs running (max_concurrent 1)' });
    expect(await getJob(database.db, second)).toMatchObject({ status: 'queued', attempts: 0 });
    expect((await graphileJob(second))!.attempts).toBe(0);

    // The worker dies: once its heartbeat is stale the job goes back to the queue, saying why.
    await registerWorker(database.db, worker, 'w1');
    await sql`update job_workers set last_seen_at = now() - interval '1 minute'`.execute(database.db);
    const report = await reconcileDeadWorkers(database.db, 10_000);
    expect(report.releasedJobs).toEqual([first]);
    expect(await getJob(database.db, first)).toMatchObject({ status: 'queued', attempts: 1, last_error: expect.stringContaining('stopped (no heartbeat)') });
  });

  it('cancels a queued job and retries it; wrong states answer job_wrong_state', async () => {
    const id = await enqueueJob(database.db, 'orchestrate', { orchestration_id: 's', event: { type: 'node.created', id: 'n', depth: 0 } });
    expect(await cancelJob(database.db, id)).toMatchObject({ status: 'cancelled' });
    expect(await graphileJob(id)).toBeUndefined();
    await expect(cancelJob(database.db, id)).rejects.toMatchObject({ code: 'job_wrong_state' });
    expect(await retryJob(database.db, id)).toMatchObject({ status: 'queued', attempts: 0 });
    expect(await graphileJob(id)).toBeDefined();
    await expect(retryJob(database.db, id)).rejects.toThrow(AppError);
    await expect(retryJob(database.db, 999_999)).rejects.toMatchObject({ code: 'not_found' });
  });

  it('lists jobs newest first with status counts and a keyset cursor', async () => {
    const page1 = await listJobs(database.db, { limit: 2 });
    expect(page1.jobs).toHaveLength(2);
    expect(page1.jobs[0]!.id).toBeGreaterThan(page1.jobs[1]!.id);
    const page2 = await listJobs(database.db, { limit: 2, before: page1.next_cursor! });
    expect(page2.jobs[0]!.id).toBeLessThan(page1.jobs[1]!.id);
    const byType = await listJobs(database.db, { limit: 10, type: 'orchestrate', status: 'queued' });
    expect(byType.jobs.every((j) => j.job_type === 'orchestrate' && j.status === 'queued')).toBe(true);
    const { rows } = await sql<{ n: string }>`select count(*) as n from job_queue where job_type = 'orchestrate' and status = 'queued'`.execute(database.db);
    expect(byType.counts.queued).toBe(Number(rows[0]!.n));
    expect(byType.counts.cancelled).toBe(0);
  });

  it('rejects a rule that would break the limits', async () => {
    await expect(updateRule(database.db, { jobType: 'rendering', cpuWeight: 12 })).rejects.toMatchObject({ code: 'invalid_input' });
  });

  it('keeps the last 1000 disk measurements', async () => {
    for (let i = 0; i < 5; i++) await recordDiskStatus(database.db, { path: '/', totalBytes: 100, freeBytes: 50, usedPercent: 50, level: 'ok' }, 3);
    const { rows } = await sql<{ n: string }>`select count(*) as n from disk_status_log`.execute(database.db);
    expect(rows[0]!.n).toBe('3');
  });
});
