import { sql, type Transaction } from 'kysely';
import type { Database } from '../platform/index.js';

type Trx = Transaction<Database>;

/** Times a run is taken up again after its worker died; the next loss ends it `failed`. */
export const LOST_WORKER_RESUMES = 2;

export interface LostRunsReport {
  resumed: string[];
  failed: string[];
}

/**
 * Runs whose orchestrate job died with its worker (issue 38), in the dead-worker reconciliation's
 * transaction: each is queued again as a new job that starts at its first unfinished step, with
 * the outputs of the steps before it, or — lost more than LOST_WORKER_RESUMES times — ends
 * `failed` ("worker lost"). Either way the log says which step was under way: it may have been
 * carried out once already (an http_post sent, a node made), and a resumed run does it again.
 */
export async function resumeLostRuns(trx: Trx, jobIds: readonly number[]): Promise<LostRunsReport> {
  if (jobIds.length === 0) return { resumed: [], failed: [] };
  const { rows } = await sql<{ run_id: string; orchestration_id: string; job_id: string; lost_workers: number; payload: Record<string, unknown>; event: unknown; step: number; outputs: unknown }>`
    with lost as (
      select r.id as run_id, r.orchestration_id, r.job_id, r.lost_workers, r.outputs, r.from_step, coalesce(r.event, '{}'::jsonb) as event, q.payload
      from orchestration_runs r join job_queue q on q.id = r.job_id
      where r.status = 'running' and r.job_id = any(${jobIds.map(String)}::bigint[])
      for update of r),
    done as (
      -- Steps this job finished (a when-skipped step is finished too); earlier jobs' are in r.outputs.
      select l.run_id, max(g.step) as last_done,
             jsonb_object_agg(g.step::text, g.output) filter (where g.output is not null and g.status in ('ok', 'fallback_ok')) as outputs
      from lost l join orchestration_log g on g.job_id = l.job_id and g.orchestration_id = l.orchestration_id
      where g.status in ('ok', 'fallback_ok') or (g.status = 'skipped' and g.error like 'Hoppet over: when:%')
      group by l.run_id)
    select l.run_id, l.orchestration_id, l.job_id, l.lost_workers, l.payload, l.event,
           greatest(coalesce(d.last_done + 1, 1), coalesce((l.payload -> 'retry' ->> 'step')::int, l.from_step)) as step,
           l.outputs || coalesce(d.outputs, '{}'::jsonb) as outputs
    from lost l left join done d on d.run_id = l.run_id`.execute(trx);
  const report: LostRunsReport = { resumed: [], failed: [] };
  for (const run of rows) {
    const lost = run.lost_workers + 1;
    const again = lost <= LOST_WORKER_RESUMES;
    const error = again
      ? `Arbeideren stoppet under kjøringen (worker lost); kjøringen tas opp igjen fra steg ${run.step}. Steg ${run.step} kan allerede være utført én gang: et http_post kan bli sendt to ganger`
      : `Arbeideren stoppet under kjøringen (worker lost) for ${lost}. gang; kjøringen er avsluttet som feilet. Steg ${run.step} kan være utført`;
    await sql`insert into orchestration_log (orchestration_id, job_id, step, status, error, event)
      values (${run.orchestration_id}, ${run.job_id}, ${run.step}, 'failed', ${error}, ${JSON.stringify(run.event)}::jsonb)`.execute(trx);
    if (!again) {
      await sql`update orchestration_runs set status = 'failed', finished_at = now(), failed_step = ${run.step}, lost_workers = ${lost},
        outputs = ${JSON.stringify(run.outputs)}::jsonb where id = ${run.run_id}::uuid`.execute(trx);
      report.failed.push(run.run_id);
      continue;
    }
    // A retry's wait in progress starts over at its step: the new job carries no retry point.
    const { retry: _retry, ...payload } = run.payload;
    const { rows: queued } = await sql<{ id: string }>`select inntak_enqueue_job('orchestrate', ${JSON.stringify(payload)}::jsonb, 1, null) as id`.execute(trx);
    await sql`update orchestration_runs set status = 'queued', job_id = ${queued[0]!.id}, from_step = ${run.step}, lost_workers = ${lost},
      outputs = ${JSON.stringify(run.outputs)}::jsonb where id = ${run.run_id}::uuid`.execute(trx);
    report.resumed.push(run.run_id);
  }
  return report;
}
