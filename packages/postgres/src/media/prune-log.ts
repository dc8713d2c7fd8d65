import type { PruneDecision, PruneReport } from '@inntak/media';
import type { Db } from '../platform/index.js';

/** The pruning log (prune_runs): every run, dry or not; the last 1000 are kept. */
export type PruneRun = PruneReport;

export const PRUNE_LOG_RETENTION = 1000;

export async function recordPruneRun(db: Db, run: PruneRun): Promise<void> {
  const { id } = await db
    .insertInto('prune_runs')
    .values({
      mode: run.mode,
      trigger: run.trigger,
      started_at: new Date(run.started_at),
      disk_percent: run.disk_percent,
      deleted: JSON.stringify(run.deleted),
      freed_bytes: run.freed_bytes,
      swept: JSON.stringify(run.swept),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await db.deleteFrom('prune_runs').where('id', '<=', String(Number(id) - PRUNE_LOG_RETENTION)).execute();
}

export async function latestPruneRun(db: Db): Promise<PruneRun | null> {
  const row = await db.selectFrom('prune_runs').selectAll().orderBy('id', 'desc').limit(1).executeTakeFirst();
  if (!row) return null;
  return {
    mode: row.mode,
    trigger: row.trigger,
    started_at: row.started_at.toISOString(),
    finished_at: row.finished_at.toISOString(),
    disk_percent: Number(row.disk_percent),
    deleted: row.deleted as PruneDecision[],
    freed_bytes: Number(row.freed_bytes),
    swept: row.swept as PruneRun['swept'],
  };
}
