import { AppError } from '@inntak/core';
import type { JobStatus } from './types.js';

/**
 * The moves of a history row. `running → queued` is a failed attempt with attempts left, a job
 * the governor sent back, or a job whose worker died; `failed/cancelled → queued` is a retry.
 */
const TRANSITIONS: Record<JobStatus, readonly JobStatus[]> = {
  queued: ['running', 'cancelled'],
  running: ['completed', 'failed', 'cancelled', 'queued'],
  completed: [],
  failed: ['queued'],
  cancelled: ['queued'],
};

export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/** Retry: only a failed or cancelled job goes back to the queue. */
export function assertRetryable(jobId: number, status: JobStatus): void {
  if (status !== 'failed' && status !== 'cancelled') {
    throw new AppError('job_wrong_state', { detail: `jobb ${jobId} er ${status}; bare jobber som er failed eller cancelled kan prøves igjen` });
  }
}

/** Cancel: a queued job is removed, a running one aborted. */
export function assertCancellable(jobId: number, status: JobStatus): void {
  if (status !== 'queued' && status !== 'running') {
    throw new AppError('job_wrong_state', { detail: `jobb ${jobId} er ${status}; bare jobber som er queued eller running kan avbrytes` });
  }
}
