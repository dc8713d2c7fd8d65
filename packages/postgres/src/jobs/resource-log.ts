import { sql } from 'kysely';
import type { DiskMeasurement, ResourceLog, ResourceUsage } from '@inntak/jobs';
import type { Db } from '../platform/index.js';

/** Spec, Limits: the disk status log keeps the last 1000 measurements; so does the usage log. */
export const RESOURCE_LOG_RETENTION = 1000;

export type { DiskMeasurement, ResourceUsage };

/** The resource log port on `db`. */
export function postgresResourceLog(db: Db): ResourceLog {
  return {
    recordDiskStatus: (measurement) => recordDiskStatus(db, measurement),
    recordResourceUsage: (usage) => recordResourceUsage(db, usage),
  };
}

export async function recordDiskStatus(db: Db, m: DiskMeasurement, retention = RESOURCE_LOG_RETENTION): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('disk_status_log')
      .values({ path: m.path, total_bytes: m.totalBytes, free_bytes: m.freeBytes, used_percent: m.usedPercent, level: m.level })
      .execute();
    await sql`delete from disk_status_log where id <= (select id from disk_status_log order by id desc offset ${retention} limit 1)`.execute(trx);
  });
}

/** Records the host's usage with the running set as the governor sees it. */
export async function recordResourceUsage(db: Db, u: ResourceUsage, retention = RESOURCE_LOG_RETENTION): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`insert into resource_usage_log
        (worker_process, load_average_1m, cpu_count, memory_total_bytes, memory_free_bytes, process_rss_bytes, running_jobs, running_weight)
      select ${u.workerProcess}, ${u.loadAverage1m}, ${u.cpuCount}, ${u.memoryTotalBytes}, ${u.memoryFreeBytes}, ${u.processRssBytes},
             count(*), coalesce(sum(cpu_weight), 0)
      from job_queue where status = 'running'`.execute(trx);
    await sql`delete from resource_usage_log where id <= (select id from resource_usage_log order by id desc offset ${retention} limit 1)`.execute(trx);
  });
}
