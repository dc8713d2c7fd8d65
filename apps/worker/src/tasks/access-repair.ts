import { type Db } from '@inntak/postgres';
import { propagateBelongsTo } from '@inntak/postgres/graph';
import type { JobPayloads } from '@inntak/jobs';
import type { JobBody } from '../governed-task.js';

export function accessRepair(db: Db): JobBody<JobPayloads['access_repair']> {
  return async (payload, { logger }) => {
    const copied = await propagateBelongsTo(db, payload.edge_id);
    logger.info('access rows repaired', { edge_id: payload.edge_id, copied });
  };
}
