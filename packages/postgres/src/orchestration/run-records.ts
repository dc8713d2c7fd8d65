import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import type { JsonObject } from '@inntak/graph';
import { MAX_RUN_ATTEMPTS_KEPT, type EventRef, type RunAttempt, type RunRef, type RunStatus, type RunView } from '@inntak/orchestration';
import type { Db } from '../platform/index.js';
import type { JobPayload } from '@inntak/jobs';
import { enqueueJob } from '../jobs/index.js';

/** A run's row: by its id, or for a job queued before 023, by the job's id. */
function byRun(ref: RunRef) {
  return ref.runId !== undefined ? sql`id = ${ref.runId}::uuid` : sql`job_id = ${String(ref.jobId)}`;
}

/**
 * Marks a run running as `runsAs`. `previousRunsAs` is whom it acted as before (a run queued
 * again to wait for a retry, or taken up again after its worker died, has run some steps
 * already); null for a run starting now.
 */
export async function startRun(db: Db, ref: RunRef, runsAs: string): Promise<{ fromStep: number; outputs: Record<string, JsonObject>; rerunOfRunsAs?: string | null; previousRunsAs: string | null } | undefined> {
  const { rows } = await sql<{ from_step: number; outputs: Record<string, JsonObject>; rerun_of: string | null; rerun_of_runs_as: string | null; lost_workers: number; previous_runs_as: string | null }>`
    with prev as (select id, runs_as from orchestration_runs where ${byRun(ref)} for update)
    update orchestration_runs r set status = 'running', started_at = now(), runs_as = ${runsAs}
    from prev where r.id = prev.id
    returning r.from_step, r.outputs, r.rerun_of, r.lost_workers, prev.runs_as as previous_runs_as,
      (select f.runs_as from orchestration_runs f where f.id = r.rerun_of) as rerun_of_runs_as`.execute(db);
  const row = rows[0];
  if (!row) return undefined;
  // A run taken up again after its worker died (issue 38) goes on as whom it ran as before.
  if (row.lost_workers > 0 && row.rerun_of === null) return { fromStep: row.from_step, outputs: row.outputs, rerunOfRunsAs: row.previous_runs_as, previousRunsAs: row.previous_runs_as };
  // A re-run whose first run is gone (rerun_of set null) still carries its state: whom it was for is then unknown (null).
  const rerun = row.rerun_of !== null || row.from_step > 1;
  return { fromStep: row.from_step, outputs: row.outputs, previousRunsAs: row.previous_runs_as, ...(rerun ? { rerunOfRunsAs: row.rerun_of_runs_as } : {}) };
}

export async function finishRun(db: Db, ref: RunRef, result: { status: RunStatus; failedStep?: number; outputs?: Record<string, JsonObject> }): Promise<void> {
  await sql`
    update orchestration_runs
    set status = ${result.status}, finished_at = now(), failed_step = ${result.failedStep ?? null},
        outputs = coalesce(${result.outputs === undefined ? null : JSON.stringify(result.outputs)}::jsonb, outputs)
    where ${byRun(ref)}`.execute(db);
}

export async function requeueRun(db: Db, ref: RunRef, next: { payload: JsonObject; runAt: Date; outputs: Record<string, JsonObject>; failed: Omit<RunAttempt, 'at'> }): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const jobId = await enqueueJob(trx, 'orchestrate', next.payload as JobPayload<'orchestrate'>, { maxAttempts: 1, runAt: next.runAt });
    // The failed attempt joins the run's list (039), which keeps its newest MAX_RUN_ATTEMPTS_KEPT.
    const failed = JSON.stringify({ ...next.failed, error: next.failed.error.slice(0, 2000) });
    await sql`
      update orchestration_runs set status = 'queued', job_id = ${String(jobId)}, outputs = ${JSON.stringify(next.outputs)}::jsonb,
        attempts = (select coalesce(jsonb_agg(e order by n), '[]'::jsonb) from (
          select e, n from jsonb_array_elements(attempts || jsonb_build_array(${failed}::jsonb || jsonb_build_object('at', now()))) with ordinality as a(e, n)
          order by n desc limit ${MAX_RUN_ATTEMPTS_KEPT}) kept)
      where ${byRun(ref)}`.execute(trx);
    return jobId;
  });
}

/** Runs a person asked for that are queued or running, up to `cap`, under their run lock (to the end of the transaction). */
export async function countActiveRuns(db: Db, personId: string, cap: number): Promise<number> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`inntak.orchestration-runs:${personId}`}, 0))`.execute(db);
  const { rows } = await sql<{ n: number }>`
    select count(*)::integer as n
    from (select 1 from orchestration_runs where requested_by = ${personId}::uuid and status in ('queued', 'running') limit ${cap}) mine`.execute(db);
  return rows[0]!.n;
}

export async function secretsOf(db: Db, orchestrationId: string): Promise<Map<string, string>> {
  const rows = await db.selectFrom('orchestration_secrets').select(['name', 'value']).where('orchestration_id', '=', orchestrationId).execute();
  return new Map(rows.map((r) => [r.name, r.value]));
}

/** A page of an orchestration's runs, newest first (keyset on created_at, id). */
export async function runsPage(db: Db, orchestrationId: string, page: { limit: number; before?: string }): Promise<RunView[]> {
  const rows = await db
    .selectFrom('orchestration_runs')
    .selectAll()
    .where('orchestration_id', '=', orchestrationId)
    // The cursor is a run's id: its own (created_at, id) is the key, at the database's precision.
    .$if(page.before !== undefined, (q) => q.where(sql<boolean>`(created_at, id) < (select r.created_at, r.id from orchestration_runs r where r.id = ${page.before!}::uuid)`))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .execute();
  return rows.map((row) => ({
    id: row.id,
    job_id: row.job_id === null ? null : Number(row.job_id),
    status: row.status,
    // Runs queued before 023 carry no event: it is rebuilt from the row.
    event: (row.event as unknown as EventRef | null) ?? { type: row.event_type as EventRef['type'], id: row.subject_id, depth: row.depth },
    failed_step: row.failed_step,
    rerun_of: row.rerun_of,
    from_step: row.from_step,
    created_at: row.created_at.toISOString(),
    started_at: row.started_at?.toISOString() ?? null,
    finished_at: row.finished_at?.toISOString() ?? null,
    duration_ms: row.started_at && row.finished_at ? row.finished_at.getTime() - row.started_at.getTime() : null,
    attempts: row.attempts as unknown as RunAttempt[],
    lost_workers: row.lost_workers,
  }));
}

/** Inserts a run (its id made here, so the event can name it) and queues its job, in the caller's transaction. */
export async function queueRun(
  db: Db,
  orchestrationId: string,
  event: (runId: string) => EventRef,
  rerun?: { rerunOf: string; fromStep: number; outputs: Record<string, JsonObject> },
  options: { requestedBy?: string } = {},
): Promise<{ run_id: string; job_id: number }> {
  const runId = randomUUID();
  const ref = event(runId);
  // A manual or scheduled run, or a re-run, is a root event of its own: its own budget.
  await db
    .insertInto('orchestration_runs')
    .values({
      id: runId,
      orchestration_id: orchestrationId,
      event_type: ref.type,
      subject_id: ref.id,
      depth: ref.depth,
      root_id: runId,
      event: JSON.stringify(ref),
      ...(rerun ? { rerun_of: rerun.rerunOf, from_step: rerun.fromStep, outputs: JSON.stringify(rerun.outputs) } : {}),
      ...(options.requestedBy ? { requested_by: options.requestedBy } : {}),
    })
    .execute();
  const jobId = await enqueueJob(db, 'orchestrate', { orchestration_id: orchestrationId, event: ref as JobPayload<'orchestrate'>['event'], root: runId, run_id: runId }, { maxAttempts: 1 });
  await db.updateTable('orchestration_runs').set({ job_id: String(jobId) }).where('id', '=', runId).execute();
  return { run_id: runId, job_id: jobId };
}
