import { sql, type Selectable } from 'kysely';
import { AppError } from '@inntak/core';
import {
  assertCancellable,
  assertRetryable,
  DEFAULT_LIMITS,
  defaultRule,
  JOB_STATUSES,
  validateRule,
  type DiskMeasurementRecord,
  type JobRecord,
  type JobRule,
  type JobStatus,
  type LiveRoomStatus,
} from '@inntak/jobs';
import type { Db } from '../platform/index.js';
import type { DiskStatusLogTable, JobQueueRow } from '../platform/index.js';
import { loadRules } from './job-store.js';

/** Workers listen here: `rules` (reload the rules) and `cancel:<id>` (abort that running job). */
export const JOBS_CHANNEL = 'inntak_jobs';

/** A history row as the domain's JobRecord (ids and dates typed, not wire text). */
export function toJobRecord(row: JobQueueRow): JobRecord {
  return { ...row, id: Number(row.id) };
}

export interface JobListQuery {
  type?: string;
  status?: JobStatus;
  limit: number;
  /** Keyset: jobs with an id below this one (the previous page's next_cursor). */
  before?: number;
}

export interface JobList {
  counts: Record<JobStatus, number>;
  jobs: JobRecord[];
  next_cursor: number | null;
}

/** Newest first; counts are per status over the type filter (all statuses). */
export async function listJobs(db: Db, query: JobListQuery): Promise<JobList> {
  let rows = db.selectFrom('job_queue').selectAll().orderBy('id', 'desc').limit(query.limit + 1);
  if (query.type) rows = rows.where('job_type', '=', query.type);
  if (query.status) rows = rows.where('status', '=', query.status);
  if (query.before !== undefined) rows = rows.where('id', '<', String(query.before));
  let counts = db.selectFrom('job_queue').select(['status', sql<string>`count(*)`.as('n')]).groupBy('status');
  if (query.type) counts = counts.where('job_type', '=', query.type);
  const [page, countRows] = await Promise.all([rows.execute(), counts.execute()]);
  const more = page.length > query.limit;
  const jobs = page.slice(0, query.limit).map(toJobRecord);
  const result = Object.fromEntries(JOB_STATUSES.map((s) => [s, 0])) as Record<JobStatus, number>;
  for (const row of countRows) result[row.status] = Number(row.n);
  return { counts: result, jobs, next_cursor: more ? jobs[jobs.length - 1]!.id : null };
}

export async function getJob(db: Db, id: number): Promise<JobRecord> {
  const row = await db.selectFrom('job_queue').selectAll().where('id', '=', String(id)).executeTakeFirst();
  if (!row) throw new AppError('not_found', { detail: `jobb ${id}` });
  return toJobRecord(row);
}

/** Retry a failed or cancelled job: back to queued with its attempts reset. */
export async function retryJob(db: Db, id: number): Promise<JobRecord> {
  await db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('job_queue').select('status').where('id', '=', String(id)).forUpdate().executeTakeFirst();
    if (!row) throw new AppError('not_found', { detail: `jobb ${id}` });
    assertRetryable(id, row.status);
    await trx
      .updateTable('job_queue')
      .set({ attempts: 0, started_at: null, finished_at: null, cancel_requested_at: null, updated_at: sql`now()` })
      .where('id', '=', String(id))
      .execute();
    await sql`select inntak_schedule_job(${id})`.execute(trx);
  });
  return getJob(db, id);
}

/**
 * Cancel a queued job (removed from the queue) or a running one (its worker is told to abort;
 * the row turns cancelled when the job has stopped).
 */
export async function cancelJob(db: Db, id: number): Promise<JobRecord> {
  await db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom('job_queue').select('status').where('id', '=', String(id)).forUpdate().executeTakeFirst();
    if (!row) throw new AppError('not_found', { detail: `jobb ${id}` });
    assertCancellable(id, row.status);
    // Deletes an unlocked job; a locked one loses its key and its retries.
    await sql`select graphile_worker.remove_job(${`inntak:${id}`})`.execute(trx);
    if (row.status === 'queued') {
      await trx
        .updateTable('job_queue')
        .set({ status: 'cancelled', cancel_requested_at: sql`now()`, finished_at: sql`now()`, last_error: 'cancelled', updated_at: sql`now()` })
        .where('id', '=', String(id))
        .execute();
    } else {
      await trx.updateTable('job_queue').set({ cancel_requested_at: sql`now()`, updated_at: sql`now()` }).where('id', '=', String(id)).execute();
      await sql`select pg_notify(${JOBS_CHANNEL}, ${`cancel:${id}`})`.execute(trx);
    }
  });
  return getJob(db, id);
}

/** Changes (or adds) a rule; running workers reload on the notification. */
export async function updateRule(db: Db, change: { jobType: string } & Partial<Omit<JobRule, 'jobType'>>): Promise<JobRule> {
  return db.transaction().execute(async (trx) => {
    const current = (await loadRules(trx)).get(change.jobType);
    const base = current ?? defaultRule(change.jobType);
    const rule: JobRule = { ...base, ...Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined)) } as JobRule;
    const problem = validateRule(rule, DEFAULT_LIMITS);
    if (problem) throw new AppError('invalid_input', { detail: problem });
    const values = {
      job_type: rule.jobType,
      base_priority: rule.basePriority,
      cpu_weight: rule.cpuWeight,
      max_concurrent: rule.maxConcurrent,
      livekit_priority_adj: rule.livekitPriorityAdj,
      block_during_livekit: rule.blockDuringLivekit,
      timeout_seconds: rule.timeoutSeconds,
    };
    await trx
      .insertInto('job_priority_rules')
      .values(values)
      .onConflict((oc) => oc.column('job_type').doUpdateSet({ ...values, updated_at: sql`now()` }))
      .execute();
    await sql`select pg_notify(${JOBS_CHANNEL}, 'rules')`.execute(trx);
    return rule;
  });
}

function toDiskRecord(row: Selectable<DiskStatusLogTable>): DiskMeasurementRecord {
  return {
    measured_at: row.measured_at,
    path: row.path,
    total_bytes: Number(row.total_bytes),
    free_bytes: Number(row.free_bytes),
    used_percent: Number(row.used_percent),
    level: row.level,
  };
}

export async function diskStatus(db: Db, historyLimit = 100): Promise<{ current: DiskMeasurementRecord | null; history: DiskMeasurementRecord[] }> {
  const rows = await db.selectFrom('disk_status_log').selectAll().orderBy('id', 'desc').limit(historyLimit).execute();
  const history = rows.map(toDiskRecord);
  return { current: history[0] ?? null, history };
}

/** The facts behind GET /admin/resources: what runs, what waits, the rules, live rooms, disk, workers. */
export async function resourceStatus(db: Db, liveRooms: LiveRoomStatus) {
  const [running, depth, rules, rooms, liveRoomActive, disk, workers, usage] = await Promise.all([
    db.selectFrom('job_queue').selectAll().where('status', '=', 'running').orderBy('started_at').execute(),
    db.selectFrom('job_queue').select(['job_type', sql<string>`count(*)`.as('n')]).where('status', '=', 'queued').groupBy('job_type').execute(),
    loadRules(db),
    db.selectFrom('live_rooms').select(['room_id', 'started_at']).where('ended_at', 'is', null).execute(),
    liveRooms.isActive(),
    diskStatus(db, 1),
    db.selectFrom('job_workers').select(['process_id', sql<string>`count(*)`.as('workers'), sql<Date>`max(last_seen_at)`.as('last_seen_at')]).groupBy('process_id').execute(),
    db.selectFrom('resource_usage_log').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst(),
  ]);
  return {
    running: running.map(toJobRecord),
    queueDepth: Object.fromEntries(depth.map((row) => [row.job_type, Number(row.n)])),
    rules: [...rules.values()],
    liveRoom: { active: liveRoomActive, rooms },
    disk: disk.current,
    workers: workers.map((w) => ({ process_id: w.process_id, workers: Number(w.workers), last_seen_at: new Date(w.last_seen_at) })),
    usage: usage
      ? {
          measured_at: usage.measured_at,
          worker_process: usage.worker_process,
          load_average_1m: Number(usage.load_average_1m),
          cpu_count: usage.cpu_count,
          memory_total_bytes: Number(usage.memory_total_bytes),
          memory_free_bytes: Number(usage.memory_free_bytes),
          process_rss_bytes: Number(usage.process_rss_bytes),
          running_jobs: usage.running_jobs,
          running_weight: usage.running_weight,
        }
      : null,
  };
}

export type ResourceStatus = Awaited<ReturnType<typeof resourceStatus>>;
