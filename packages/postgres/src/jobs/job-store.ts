import { hostname } from 'node:os';
import { sql, type Transaction } from 'kysely';
import {
  admit,
  DEFAULT_LIMITS,
  ruleFor,
  type Admission,
  type GovernorLimits,
  type JobPayload,
  type JobRule,
  type JobOutcome,
  type JobRunStore,
  type JobStart,
  type JobStatus,
  type RunningJob,
  type StartDecision,
  type WorkerProcess,
} from '@inntak/jobs';
import type { Database, JobPriorityRuleRow } from '../platform/index.js';
import type { Db } from '../platform/index.js';

type DbOrTrx = Db | Transaction<Database>;

export type { WorkerProcess, JobStart, StartDecision, JobOutcome };

export interface EnqueueOptions {
  maxAttempts?: number;
  runAt?: Date;
}

/**
 * Queues a job: history row, type flag and rule priority, in the caller's transaction when
 * given one (inntak_enqueue_job in 003.do.jobs.sql). Returns the history id.
 */
export async function enqueueJob<T extends string>(db: DbOrTrx, jobType: T, payload: JobPayload<T>, options: EnqueueOptions = {}): Promise<number> {
  const { rows } = await sql<{ id: string }>`select inntak_enqueue_job(${jobType}, ${JSON.stringify(payload)}::jsonb, ${options.maxAttempts ?? null}::int, ${options.runAt ?? null}::timestamptz) as id`.execute(db);
  return Number(rows[0]!.id);
}

export function toJobRule(row: JobPriorityRuleRow): JobRule {
  return {
    jobType: row.job_type,
    basePriority: row.base_priority,
    cpuWeight: row.cpu_weight,
    maxConcurrent: row.max_concurrent,
    livekitPriorityAdj: row.livekit_priority_adj,
    blockDuringLivekit: row.block_during_livekit,
    timeoutSeconds: row.timeout_seconds,
  };
}

export async function loadRules(db: DbOrTrx): Promise<Map<string, JobRule>> {
  const rows = await db.selectFrom('job_priority_rules').selectAll().execute();
  return new Map(rows.map((row) => [row.job_type, toJobRule(row)]));
}

/** The running set across every worker process. */
export async function loadRunningSet(db: DbOrTrx): Promise<RunningJob[]> {
  const rows = await db.selectFrom('job_queue').select(['job_type', 'cpu_weight']).where('status', '=', 'running').execute();
  return rows.map((row) => ({ jobType: row.job_type, cpuWeight: row.cpu_weight }));
}

export function newWorkerProcess(): WorkerProcess {
  return { processId: `${hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 8)}` };
}

/**
 * The strict half of the governor. forbiddenFlags keeps most over-limit jobs from being fetched,
 * but two workers can pass it at once; so every start serialises on one advisory lock, re-reads
 * the running set and either marks the job running or hands it back to the queue a little later
 * without counting the attempt.
 */
export async function startJob(
  db: Db,
  worker: WorkerProcess,
  job: JobStart,
  options: { liveRoomActive: boolean; limits?: GovernorLimits; deferMs: number },
): Promise<StartDecision> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('inntak.governor'))`.execute(trx);
    // One round trip for the whole view while the lock is held: the row (locked, so a concurrent
    // cancel_job waits and then sees it running), the rules, the running set.
    const { rows } = await sql<{ row: { id: string; status: JobStatus; cancel_requested_at: string | null } | null; rules: JobPriorityRuleRow[]; running: { job_type: string; cpu_weight: number }[] }>`
      select
        (select json_build_object('id', id, 'status', status, 'cancel_requested_at', cancel_requested_at)
           from job_queue where worker_job_id = ${job.workerJobId} for update) as row,
        coalesce((select json_agg(r) from job_priority_rules r), '[]') as rules,
        coalesce((select json_agg(json_build_object('job_type', job_type, 'cpu_weight', cpu_weight))
           from job_queue where status = 'running'), '[]') as running`.execute(trx);
    const view = rows[0]!;
    let row = view.row;
    if (!row) {
      // A job queued around enqueueJob (plain add_job): give it a history row now.
      const inserted = await trx
        .insertInto('job_queue')
        .values({ job_type: job.jobType, payload: JSON.stringify(job.payload ?? {}), max_attempts: job.maxAttempts, worker_job_id: job.workerJobId })
        .returning(['id', 'status'])
        .executeTakeFirstOrThrow();
      row = { ...inserted, cancel_requested_at: null };
    }
    const historyId = Number(row.id);
    if (row.status === 'cancelled' || row.cancel_requested_at) return { kind: 'cancelled', historyId };
    const rules = new Map(view.rules.map((r) => [r.job_type, toJobRule(r)]));
    const running = view.running.map((r) => ({ jobType: r.job_type, cpuWeight: r.cpu_weight }));
    const decision: Admission = admit(job.jobType, { rules, running, liveRoomActive: options.liveRoomActive, limits: options.limits ?? DEFAULT_LIMITS });
    if (!decision.admitted) {
      // The fetch counted an attempt; the governor's hand-back must not.
      await sql`select inntak_defer_job(${historyId}, ${`${options.deferMs} milliseconds`}::interval, ${job.attempts - 1})`.execute(trx);
      return { kind: 'deferred', historyId, reason: decision.reason };
    }
    const rule = ruleFor(rules, job.jobType);
    await sql`
      with registered as (
        insert into job_workers (worker_id, process_id, hostname, pid)
        values (${job.workerId}, ${worker.processId}, ${hostname()}, ${process.pid})
        on conflict (worker_id) do update set last_seen_at = now()
        returning 1
      )
      update job_queue
      set status = 'running', attempts = ${job.attempts}, worker_id = ${job.workerId}, worker_process = ${worker.processId},
          cpu_weight = ${rule.cpuWeight}, started_at = now(), finished_at = null, updated_at = now()
      where id = ${historyId} and exists (select 1 from registered)`.execute(trx);
    return { kind: 'admitted', historyId, rule };
  });
}

export async function finishJob(db: Db, historyId: number, outcome: JobOutcome): Promise<void> {
  const status: JobStatus = outcome.kind === 'failed' ? (outcome.final ? 'failed' : 'queued') : outcome.kind;
  const ended = status !== 'queued';
  await db
    .updateTable('job_queue')
    .set({
      status,
      ...(outcome.kind === 'completed' ? {} : { last_error: 'error' in outcome ? (outcome.error ?? 'cancelled') : null }),
      finished_at: ended ? sql`now()` : null,
      ...(ended ? {} : { worker_id: null, worker_process: null }),
      updated_at: sql`now()`,
    })
    .where('id', '=', String(historyId))
    .execute();
}

export async function isCancelRequested(db: Db, historyId: number): Promise<boolean> {
  const row = await db.selectFrom('job_queue').select('cancel_requested_at').where('id', '=', String(historyId)).executeTakeFirst();
  return Boolean(row?.cancel_requested_at);
}

/** Registers a graphile-worker worker id of this process (its jobs are released if it dies). */
export async function registerWorker(db: Db, worker: WorkerProcess, workerId: string): Promise<void> {
  await db
    .insertInto('job_workers')
    .values({ worker_id: workerId, process_id: worker.processId, hostname: hostname(), pid: process.pid })
    .onConflict((oc) => oc.column('worker_id').doUpdateSet({ last_seen_at: sql`now()` }))
    .execute();
}

export async function heartbeat(db: Db, worker: WorkerProcess): Promise<void> {
  await db.updateTable('job_workers').set({ last_seen_at: sql`now()` }).where('process_id', '=', worker.processId).execute();
}

export async function unregisterWorkerProcess(db: Db, worker: WorkerProcess): Promise<void> {
  await db.deleteFrom('job_workers').where('process_id', '=', worker.processId).execute();
}

export interface ReconcileReport<T = undefined> {
  deadProcesses: string[];
  releasedJobs: number[];
  /** What `afterRelease` made of the released jobs (e.g. orchestration runs taken up again). */
  after?: T;
}

/**
 * Worker processes that stopped heartbeating (kill -9, lost host) are dead: their graphile-worker
 * locks are released now instead of after graphile-worker's 4 hours, and their running history
 * rows go back to queued (or to failed when no attempt is left), saying why.
 */
export async function reconcileDeadWorkers<T = undefined>(
  db: Db,
  staleAfterMs: number,
  /** Runs in the same transaction with the jobs just released, so nothing they own is left behind (issue 38). */
  afterRelease?: (trx: Transaction<Database>, jobIds: number[]) => Promise<T>,
): Promise<ReconcileReport<T>> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('inntak.governor'))`.execute(trx);
    const dead = await trx
      .deleteFrom('job_workers')
      .where('last_seen_at', '<', sql<Date>`now() - ${`${staleAfterMs} milliseconds`}::interval`)
      .returning(['worker_id', 'process_id'])
      .execute();
    if (dead.length > 0) {
      await sql`select graphile_worker.force_unlock_workers(${dead.map((d) => d.worker_id)}::text[])`.execute(trx);
    }
    const released = await trx
      .updateTable('job_queue')
      .set({
        // A cancel asked of the dead worker is honoured: its job already lost its retries.
        status: sql`case when cancel_requested_at is not null then 'cancelled' when attempts >= max_attempts then 'failed' else 'queued' end`,
        // Says what happens next: only a job with attempts left is run again (issue 38).
        last_error: sql`'worker process ' || worker_process || ' stopped (no heartbeat); ' || case
          when cancel_requested_at is not null then 'job cancelled as asked'
          when attempts >= max_attempts then 'no attempts left (' || attempts || ' of ' || max_attempts || '), job failed'
          else 'job released for retry' end`,
        finished_at: sql`case when cancel_requested_at is not null or attempts >= max_attempts then now() end`,
        worker_id: null,
        worker_process: null,
        updated_at: sql`now()`,
      })
      .where('status', '=', 'running')
      .where(({ not, exists, selectFrom }) =>
        not(exists(selectFrom('job_workers as w').select('w.worker_id').whereRef('w.process_id', '=', 'job_queue.worker_process'))),
      )
      .returning('id')
      .execute();
    const releasedJobs = released.map((r) => Number(r.id));
    const after = afterRelease ? await afterRelease(trx, releasedJobs) : undefined;
    return { deadProcesses: [...new Set(dead.map((d) => d.process_id))], releasedJobs, ...(after !== undefined ? { after } : {}) };
  });
}

/** The governed run's store on PostgreSQL (JobRunStore, packages/jobs/src/ports.ts). */
export function postgresJobRuns(db: Db): JobRunStore {
  return {
    startJob: (worker, job, options) => startJob(db, worker, job, options),
    finishJob: (historyId, outcome) => finishJob(db, historyId, outcome),
    isCancelRequested: (historyId) => isCancelRequested(db, historyId),
  };
}
