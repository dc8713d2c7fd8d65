import { sql, type Selectable, type Transaction } from 'kysely';
import { OPERATOR } from '@inntak/access';
import * as jobAdmin from '@inntak/jobs';
import {
  JOB_STATUSES,
  type DiskMeasurementRecord,
  type DiskStatus,
  type JobAdminStore,
  type JobAdminTx,
  type JobList,
  type JobListQuery,
  type JobRecord,
  type JobRule,
  type JobStatus,
  type LiveRoomStatus,
  type ResourceFacts,
  type RuleChange,
} from '@inntak/jobs';
import type { Database, Db, DiskStatusLogTable, JobQueueRow } from '../platform/index.js';
import { loadRules } from './job-store.js';

/** Workers listen here: `rules` (reload the rules) and `cancel:<id>` (abort that running job). */
export const JOBS_CHANNEL = 'inntak_jobs';

/** A history row as the domain's JobRecord (ids and dates typed, not wire text). */
export function toJobRecord(row: JobQueueRow): JobRecord {
  return { ...row, id: Number(row.id) };
}

/** The job admin's writes on PostgreSQL, in one transaction. */
class PostgresJobAdminTx implements JobAdminTx {
  constructor(private readonly trx: Transaction<Database>) {}

  async jobStatus(id: number, options: { forUpdate: boolean }): Promise<JobStatus | undefined> {
    const query = this.trx.selectFrom('job_queue').select('status').where('id', '=', String(id));
    const row = await (options.forUpdate ? query.forUpdate() : query).executeTakeFirst();
    return row?.status;
  }

  async requeue(id: number): Promise<void> {
    await this.trx
      .updateTable('job_queue')
      .set({ attempts: 0, started_at: null, finished_at: null, cancel_requested_at: null, updated_at: sql`now()` })
      .where('id', '=', String(id))
      .execute();
    await sql`select inntak_schedule_job(${id})`.execute(this.trx);
  }

  async removeWorkerJob(id: number): Promise<void> {
    await sql`select graphile_worker.remove_job(${`inntak:${id}`})`.execute(this.trx);
  }

  async markCancelled(id: number): Promise<void> {
    await this.trx
      .updateTable('job_queue')
      .set({ status: 'cancelled', cancel_requested_at: sql`now()`, finished_at: sql`now()`, last_error: 'cancelled', updated_at: sql`now()` })
      .where('id', '=', String(id))
      .execute();
  }

  async requestCancel(id: number): Promise<void> {
    await this.trx.updateTable('job_queue').set({ cancel_requested_at: sql`now()`, updated_at: sql`now()` }).where('id', '=', String(id)).execute();
    await sql`select pg_notify(${JOBS_CHANNEL}, ${`cancel:${id}`})`.execute(this.trx);
  }

  rules(): Promise<Map<string, JobRule>> {
    return loadRules(this.trx);
  }

  async saveRule(rule: JobRule): Promise<void> {
    const values = {
      job_type: rule.jobType,
      base_priority: rule.basePriority,
      cpu_weight: rule.cpuWeight,
      max_concurrent: rule.maxConcurrent,
      livekit_priority_adj: rule.livekitPriorityAdj,
      block_during_livekit: rule.blockDuringLivekit,
      timeout_seconds: rule.timeoutSeconds,
    };
    await this.trx
      .insertInto('job_priority_rules')
      .values(values)
      .onConflict((oc) => oc.column('job_type').doUpdateSet({ ...values, updated_at: sql`now()` }))
      .execute();
    await sql`select pg_notify(${JOBS_CHANNEL}, 'rules')`.execute(this.trx);
  }
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

/** The job admin's store on PostgreSQL: job_queue, job_priority_rules and the resource logs. */
export class PostgresJobAdminStore implements JobAdminStore {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (tx: JobAdminTx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new PostgresJobAdminTx(trx)));
  }

  /** Newest first; counts are per status over the type filter (all statuses). */
  async listJobs(query: JobListQuery): Promise<JobList> {
    const { db } = this;
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

  async getJob(id: number): Promise<JobRecord | undefined> {
    const row = await this.db.selectFrom('job_queue').selectAll().where('id', '=', String(id)).executeTakeFirst();
    return row && toJobRecord(row);
  }

  async diskStatus(historyLimit: number): Promise<DiskStatus> {
    const rows = await this.db.selectFrom('disk_status_log').selectAll().orderBy('id', 'desc').limit(historyLimit).execute();
    const history = rows.map(toDiskRecord);
    return { current: history[0] ?? null, history };
  }

  async resourceFacts(): Promise<ResourceFacts> {
    const { db } = this;
    const [running, depth, rules, rooms, disk, workers, usage] = await Promise.all([
      db.selectFrom('job_queue').selectAll().where('status', '=', 'running').orderBy('started_at').execute(),
      db.selectFrom('job_queue').select(['job_type', sql<string>`count(*)`.as('n')]).where('status', '=', 'queued').groupBy('job_type').execute(),
      loadRules(db),
      db.selectFrom('live_rooms').select(['room_id', 'started_at']).where('ended_at', 'is', null).execute(),
      this.diskStatus(1),
      db.selectFrom('job_workers').select(['process_id', sql<string>`count(*)`.as('workers'), sql<Date>`max(last_seen_at)`.as('last_seen_at')]).groupBy('process_id').execute(),
      db.selectFrom('resource_usage_log').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst(),
    ]);
    return {
      running: running.map(toJobRecord),
      queueDepth: Object.fromEntries(depth.map((row) => [row.job_type, Number(row.n)])),
      rules: [...rules.values()],
      rooms,
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
}

// Thin wrappers for the CLI and the tests: the use cases as the operator (a system administrator).

export const listJobs = (db: Db, query: JobListQuery) => jobAdmin.listJobs(new PostgresJobAdminStore(db), OPERATOR, query);
export const getJob = (db: Db, id: number) => jobAdmin.getJob(new PostgresJobAdminStore(db), OPERATOR, id);
export const retryJob = (db: Db, id: number) => jobAdmin.retryJob(new PostgresJobAdminStore(db), OPERATOR, id);
export const cancelJob = (db: Db, id: number) => jobAdmin.cancelJob(new PostgresJobAdminStore(db), OPERATOR, id);
export const updateRule = (db: Db, change: RuleChange) => jobAdmin.updateRule(new PostgresJobAdminStore(db), OPERATOR, change);
export const diskStatus = (db: Db, historyLimit = 100) => jobAdmin.diskStatus(new PostgresJobAdminStore(db), OPERATOR, historyLimit);
export const resourceStatus = (db: Db, liveRooms: LiveRoomStatus) => jobAdmin.resourceStatus(new PostgresJobAdminStore(db), OPERATOR, liveRooms);
