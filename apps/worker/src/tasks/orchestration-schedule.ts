import type { Task } from 'graphile-worker';
import type { Logger } from '@inntak/core';

/**
 * The crontab's minute for scheduled orchestrations (docs/orchestration.md, "schedule"): one run
 * of each one that is due, its next time counted from now (a service that was down does not
 * replay the minutes it missed). Housekeeping, outside the governor: an index range scan and a
 * queued job per due orchestration; the runs themselves are governed orchestrate jobs.
 */
export function orchestrationScheduleTask(deps: { planScheduledRuns(): Promise<number>; logger: Logger }): Task {
  return async () => {
    const queued = await deps.planScheduledRuns();
    if (queued > 0) deps.logger.info('scheduled orchestrations queued', { tag: 'orchestration_schedule', queued });
  };
}
