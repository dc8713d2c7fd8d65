import { NotImplementedJobError, type JobPayloads } from '@inntak/jobs';
import type { JobBody } from '../governed-task.js';

/** Compiles and runs an orchestration script (issue to come); fails visibly until then. */
export function orchestrate(): JobBody<JobPayloads['orchestrate']> {
  return async () => {
    throw new NotImplementedJobError('orchestrate');
  };
}
