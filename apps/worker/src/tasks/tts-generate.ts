import { NotImplementedJobError, type JobPayloads } from '@inntak/jobs';
import type { JobBody } from '../governed-task.js';

/** Speech for a node's text (issue to come); fails visibly until then. */
export function ttsGenerate(): JobBody<JobPayloads['tts_generate']> {
  return async () => {
    throw new NotImplementedJobError('tts_generate');
  };
}
