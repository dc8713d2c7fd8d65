import type { JobPayloads } from '@inntak/jobs';
import type { JobBody } from '../governed-task.js';

/** `repair` copies a belongs_to edge's access rows again (packages/postgres propagateBelongsTo); returns rows written. */
export function accessRepair(repair: (edgeId: string) => Promise<number>): JobBody<JobPayloads['access_repair']> {
  return async (payload, { logger }) => {
    const copied = await repair(payload.edge_id);
    logger.info('access rows repaired', { edge_id: payload.edge_id, copied });
  };
}
