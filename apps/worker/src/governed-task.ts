import type { JobHelpers, Task } from 'graphile-worker';
import { coerceError, type Logger } from '@inntak/core';
import { parseJobPayload, PermanentJobError, type JobPayload, type JobRunStore, type WorkerProcess } from '@inntak/jobs';
import { JobCancelledError, JobTimeoutError, type Governor } from './governor.js';

export interface JobContext {
  /** Aborted on timeout, cancel or shutdown; bodies pass it on to their I/O. */
  signal: AbortSignal;
  logger: Logger;
  /** This attempt's number, from 1. */
  attempt: number;
  /** The job's history id (job_queue.id, what /admin/jobs shows). */
  jobId: number;
}

export type JobBody<P> = (payload: P, context: JobContext) => Promise<void>;

export interface GovernedDeps {
  /** The history and the governor's strict start (postgresJobRuns in worker.ts). */
  runs: JobRunStore;
  worker: WorkerProcess;
  governor: Governor;
  logger: Logger;
  deferMs: number;
}

/**
 * Every job type runs inside this wrapper: admission by the governor (strict, under its lock),
 * the payload checked against its type's schema (a bad one fails the job at once, no retries),
 * the type's timeout, cancel and shutdown as one AbortSignal, the history row kept in step, and
 * one log line at start and at end with the duration.
 */
export function governed<T extends string>(jobType: T, body: JobBody<JobPayload<T>>, deps: GovernedDeps): Task {
  return async (payload: unknown, helpers: JobHelpers) => {
    const { job } = helpers;
    const decision = await deps.runs.startJob(
      deps.worker,
      { workerJobId: job.id, jobType, payload, attempts: job.attempts, maxAttempts: job.max_attempts, workerId: job.locked_by ?? 'unknown' },
      { liveRoomActive: await deps.governor.liveRooms.isActive(), deferMs: deps.deferMs },
    );
    const meta = { job_id: decision.historyId, job_type: jobType, attempt: job.attempts, max_attempts: job.max_attempts, worker_id: job.locked_by };
    if (decision.kind === 'deferred') {
      deps.logger.debug('job deferred by the governor', { ...meta, reason: decision.reason });
      return;
    }
    if (decision.kind === 'cancelled') {
      deps.logger.info('job cancelled before it started', meta);
      return;
    }

    const controller = new AbortController();
    const untrack = deps.governor.track(decision.historyId, controller);
    // Every process hears every cancel; only the row says whether this run is the one cancelled
    // (a retried job's row has no cancel_requested_at).
    if (deps.governor.takeEarlyCancel(decision.historyId) && (await deps.runs.isCancelRequested(decision.historyId))) {
      controller.abort(new JobCancelledError(decision.historyId));
    }
    // Says what happens next (issue 38): a job on its last attempt is not run again.
    const next = job.attempts >= job.max_attempts ? `no attempts left (${job.attempts} of ${job.max_attempts}), job failed` : 'released for retry';
    const onShutdown = () => controller.abort(new Error(`worker shut down before the job finished; ${next}`));
    helpers.abortSignal.addEventListener('abort', onShutdown, { once: true });
    const timeoutSeconds = decision.rule.timeoutSeconds;
    const timer = setTimeout(() => controller.abort(new JobTimeoutError(timeoutSeconds)), timeoutSeconds * 1000);
    const started = performance.now();
    const duration = () => Math.round(performance.now() - started);
    deps.logger.info('job started', meta);
    try {
      // Inside the try: a PermanentJobError from the check ends the job failed, like the body's own.
      const checked = parseJobPayload(jobType, payload);
      await Promise.race([body(checked, { signal: controller.signal, logger: deps.logger, attempt: job.attempts, jobId: decision.historyId }), whenAborted(controller.signal)]);
      await deps.runs.finishJob(decision.historyId, { kind: 'completed' });
      deps.logger.info('job completed', { ...meta, duration_ms: duration() });
    } catch (thrown) {
      const error = coerceError(controller.signal.aborted ? controller.signal.reason : thrown);
      if (error instanceof JobCancelledError || (await deps.runs.isCancelRequested(decision.historyId))) {
        await deps.runs.finishJob(decision.historyId, { kind: 'cancelled', error: 'cancelled while running' });
        deps.logger.info('job cancelled', { ...meta, duration_ms: duration() });
        return; // graphile-worker deletes it; the history says cancelled.
      }
      if (error instanceof PermanentJobError) {
        await deps.runs.finishJob(decision.historyId, { kind: 'failed', error: error.message, final: true });
        deps.logger.error('job failed permanently', { ...meta, duration_ms: duration(), error: error.message });
        return;
      }
      const final = job.attempts >= job.max_attempts;
      await deps.runs.finishJob(decision.historyId, { kind: 'failed', error: error.message, final });
      deps.logger.error(final ? 'job failed; no attempts left' : 'job attempt failed; will retry', { ...meta, duration_ms: duration(), error: error.message });
      throw error; // graphile-worker schedules the retry with its backoff.
    } finally {
      clearTimeout(timer);
      untrack();
      helpers.abortSignal.removeEventListener('abort', onShutdown);
    }
  };
}

function whenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}
