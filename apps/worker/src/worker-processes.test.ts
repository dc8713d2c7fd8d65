import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import type { Logger } from '@inntak/core';
import { cancelJob, endLiveRoom, enqueueJob, getJob, startLiveRoom, updateRule } from '@inntak/postgres/jobs';
import { openTestDatabase, type OpenTestDatabase } from '@inntak/postgres/testing';
import { spawnWorker, waitFor, type WorkerProcessHandle } from './__tests__/worker-process.js';

// Real PostgreSQL, two real worker processes (each concurrency 3, so 6 slots against a global
// limit of 3), sleep jobs of weights 1, 2 and 5.
const silent: Logger = { error() {}, warn() {}, info() {}, debug() {} };
const WEIGHTS: Record<string, number> = { sleep_light: 1, sleep_medium: 2, sleep_heavy: 5, sleep_live: 1 };
const MAX_CONCURRENT: Record<string, number> = { sleep_light: 3, sleep_medium: 2, sleep_heavy: 1, sleep_live: 3 };

let database: OpenTestDatabase;
let workers: WorkerProcessHandle[] = [];

beforeAll(async () => {
  database = await openTestDatabase(silent);
  await sql`create table test_exec (id serial primary key, pid integer not null, tag text, started_at timestamptz not null default now())`.execute(database.db);
  for (const [jobType, cpuWeight] of Object.entries(WEIGHTS)) {
    await updateRule(database.db, { jobType, cpuWeight, maxConcurrent: MAX_CONCURRENT[jobType], blockDuringLivekit: jobType === 'sleep_live', livekitPriorityAdj: jobType === 'sleep_live' ? 50 : 0 });
  }
  workers = await Promise.all([spawnWorker(database.url), spawnWorker(database.url)]);
});

afterAll(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  await database.dispose();
});

interface Sample {
  executing: number;
  executingWeight: number;
  perType: Record<string, number>;
  governorRunning: number;
  governorWeight: number;
}

/** Samples what really executes (test_exec) and the governor's running set, until stopped. */
function sampleContinuously(): { stop(): Promise<Sample[]> } {
  const samples: Sample[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const [exec, gov] = await Promise.all([
        sql<{ tag: string; n: string }>`select tag, count(*) as n from test_exec group by tag`.execute(database.db),
        sql<{ n: string; w: string | null }>`select count(*) as n, sum(cpu_weight) as w from job_queue where status = 'running'`.execute(database.db),
      ]);
      const perType = Object.fromEntries(exec.rows.map((r) => [r.tag, Number(r.n)]));
      samples.push({
        executing: Object.values(perType).reduce((a, b) => a + b, 0),
        executingWeight: Object.entries(perType).reduce((sum, [tag, n]) => sum + n * (WEIGHTS[tag] ?? 0), 0),
        perType,
        governorRunning: Number(gov.rows[0]!.n),
        governorWeight: Number(gov.rows[0]!.w ?? 0),
      });
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return samples;
    },
  };
}

async function statusOf(ids: number[]): Promise<Record<string, number>> {
  const { rows } = await sql<{ status: string; n: string }>`select status, count(*) as n from job_queue where id = any(${ids}) group by status`.execute(database.db);
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

describe('resource governor with two worker processes', () => {
  it('never more than 3 running, never weight above 8, never above max_concurrent, with 50 mixed jobs', async () => {
    const types = ['sleep_light', 'sleep_medium', 'sleep_heavy'];
    const sampler = sampleContinuously();
    const ids: number[] = [];
    for (let i = 0; i < 50; i++) {
      const jobType = types[i % 3]!;
      ids.push(await enqueueJob(database.db, jobType, { ms: 20 + ((i * 7) % 40), tag: jobType }));
    }
    await waitFor(async () => (await statusOf(ids)).completed === 50, 25_000);
    const samples = await sampler.stop();

    expect(samples.length).toBeGreaterThan(20);
    expect(Math.max(...samples.map((s) => s.executing))).toBeLessThanOrEqual(3);
    expect(Math.max(...samples.map((s) => s.executingWeight))).toBeLessThanOrEqual(8);
    expect(Math.max(...samples.map((s) => s.governorRunning))).toBeLessThanOrEqual(3);
    expect(Math.max(...samples.map((s) => s.governorWeight))).toBeLessThanOrEqual(8);
    for (const type of types) {
      expect(Math.max(0, ...samples.map((s) => s.perType[type] ?? 0))).toBeLessThanOrEqual(MAX_CONCURRENT[type]!);
    }
    // Not vacuous: jobs did run side by side, and both processes ran some.
    expect(Math.max(...samples.map((s) => s.executing))).toBeGreaterThanOrEqual(2);
    const ran = workers.map((w) => w.logs.filter((l) => l.message === 'job completed').length);
    expect(ran.every((n) => n > 0)).toBe(true);
    // Every job's history is complete: attempts 1 (governor hand-backs do not count), timings set.
    const { rows: history } = await sql<{ attempts: number; started_at: Date | null; finished_at: Date | null; worker_id: string | null }>`
      select attempts, started_at, finished_at, worker_id from job_queue where id = any(${ids})`.execute(database.db);
    expect(history.every((h) => h.attempts === 1 && h.started_at && h.finished_at && h.worker_id)).toBe(true);
  });

  it('a rule change takes effect in running workers without restart', async () => {
    await updateRule(database.db, { jobType: 'sleep_light', maxConcurrent: 1 });
    const sampler = sampleContinuously();
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push(await enqueueJob(database.db, 'sleep_light', { ms: 60, tag: 'sleep_light' }));
    await waitFor(async () => (await statusOf(ids)).completed === 6, 10_000);
    const samples = await sampler.stop();
    expect(Math.max(...samples.map((s) => s.perType.sleep_light ?? 0))).toBe(1);
    await updateRule(database.db, { jobType: 'sleep_light', maxConcurrent: 3 });
  });

  it('a live room postpones a block_during_livekit type and ranks it later', async () => {
    await startLiveRoom(database.db, 'studio-1');
    await new Promise((r) => setTimeout(r, 400)); // past the workers' live-room cache (200 ms here)
    const id = await enqueueJob(database.db, 'sleep_live', { ms: 10, tag: 'sleep_live' });
    expect((await getJob(database.db, id)).priority).toBe(50);
    const other = await enqueueJob(database.db, 'sleep_light', { ms: 10, tag: 'sleep_light' });
    await waitFor(async () => (await getJob(database.db, other)).status === 'completed');
    await new Promise((r) => setTimeout(r, 300));
    expect((await getJob(database.db, id)).status).toBe('queued');
    await endLiveRoom(database.db, 'studio-1');
    await waitFor(async () => (await getJob(database.db, id)).status === 'completed', 5_000);
  });

  it('a timed-out job is aborted, marked failed with a clear error and retried per its attempts', async () => {
    await updateRule(database.db, { jobType: 'sleep_medium', timeoutSeconds: 1 });
    const id = await enqueueJob(database.db, 'sleep_medium', { ms: 10, first_attempt_ms: 30_000, tag: 'sleep_medium' }, { maxAttempts: 2 });
    const failed = await waitFor(async () => {
      const job = await getJob(database.db, id);
      return job.last_error ? job : undefined;
    });
    expect(failed).toMatchObject({ status: 'queued', attempts: 1, last_error: 'job timed out after 1 s and was aborted' });
    // graphile-worker's backoff for a first failure is e^1 ≈ 2.7 s.
    const done = await waitFor(async () => {
      const job = await getJob(database.db, id);
      return job.status === 'completed' ? job : undefined;
    });
    expect(done).toMatchObject({ attempts: 2, last_error: 'job timed out after 1 s and was aborted' });
    await updateRule(database.db, { jobType: 'sleep_medium', timeoutSeconds: 600 });
  });

  it('cancel aborts a running job and the history says cancelled', async () => {
    const id = await enqueueJob(database.db, 'sleep_light', { ms: 30_000, tag: 'sleep_light' });
    await waitFor(async () => (await getJob(database.db, id)).status === 'running');
    const answer = await cancelJob(database.db, id);
    expect(answer.cancel_requested_at).not.toBeNull();
    await waitFor(async () => (await getJob(database.db, id)).status === 'cancelled', 5_000);
    // graphile-worker deletes its job just after the history says cancelled.
    await waitFor(async () => {
      const { rows } = await sql<{ n: string }>`select count(*) as n from graphile_worker.jobs where id = (select worker_job_id from job_queue where id = ${id})`.execute(database.db);
      return rows[0]!.n === '0';
    });
  });

  it('kill -9 of a worker mid-job: the job is released, retried, and the history says so', async () => {
    const id = await enqueueJob(database.db, 'sleep_light', { ms: 20, first_attempt_ms: 60_000, tag: 'sleep_light' });
    const running = await waitFor(async () => {
      const job = await getJob(database.db, id);
      return job.status === 'running' ? job : undefined;
    });
    const pid = Number(running.worker_process!.split(':')[1]);
    const victim = workers.find((w) => w.child.pid === pid)!;
    expect(victim).toBeDefined();
    victim.child.kill('SIGKILL');
    const done = await waitFor(async () => {
      const job = await getJob(database.db, id);
      return job.status === 'completed' ? job : undefined;
    });
    expect(done.attempts).toBe(2);
    expect(done.last_error).toMatch(/worker process .* stopped \(no heartbeat\); job released for retry/);
    expect(done.worker_process).not.toBe(running.worker_process);
    workers = workers.filter((w) => w !== victim);
  });

  it('--once runs what is runnable now, then exits', async () => {
    const ids = await Promise.all([1, 2, 3].map(() => enqueueJob(database.db, 'sleep_light', { ms: 10, tag: 'sleep_light' })));
    const once = await spawnWorker(database.url, {}, ['--once']);
    expect(await once.exited).toBe(0);
    await waitFor(async () => (await statusOf(ids)).completed === 3, 5_000);
  });

  it('SIGTERM lets a running job finish, then the worker exits cleanly', async () => {
    const survivor = workers[0]!;
    const id = await enqueueJob(database.db, 'sleep_light', { ms: 400, tag: 'sleep_light' });
    await waitFor(async () => (await getJob(database.db, id)).status === 'running');
    expect(await survivor.stop()).toBe(0);
    expect((await getJob(database.db, id)).status).toBe('completed');
    expect(survivor.logs.some((l) => l.message === 'job completed' && l.job_id === id && typeof l.duration_ms === 'number')).toBe(true);
    workers = [];
  });

  it('SIGTERM releases a job that outlives the grace period; another worker retries it', async () => {
    const leaving = await spawnWorker(database.url, { WORKER_SHUTDOWN_GRACE_MS: '200' });
    const id = await enqueueJob(database.db, 'sleep_light', { ms: 20, first_attempt_ms: 60_000, tag: 'sleep_light' });
    await waitFor(async () => (await getJob(database.db, id)).status === 'running');
    expect(await leaving.stop()).toBe(0);
    expect(await getJob(database.db, id)).toMatchObject({
      status: 'queued',
      attempts: 1,
      last_error: 'worker shut down before the job finished; released for retry',
    });
    const next = await spawnWorker(database.url);
    workers = [next];
    // graphile-worker's backoff after a first failed attempt: e^1 ≈ 2.7 s.
    const done = await waitFor(async () => {
      const job = await getJob(database.db, id);
      return job.status === 'completed' ? job : undefined;
    });
    expect(done.attempts).toBe(2);
  });
});
