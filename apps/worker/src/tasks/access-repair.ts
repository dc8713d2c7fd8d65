import type { Task } from 'graphile-worker';
import type { Db } from '@inntak/postgres';
import { propagateBelongsTo } from '@inntak/postgres';

declare global {
  namespace GraphileWorker {
    interface Tasks {
      /** Re-runs a `belongs_to` edge's access propagation that failed during intake. */
      access_repair: { edge_id: string };
    }
  }
}

export function accessRepair(db: Db): Task<'access_repair'> {
  return async (payload, helpers) => {
    const copied = await propagateBelongsTo(db, payload.edge_id);
    helpers.logger.info(`access rows repaired for edge ${payload.edge_id}: ${copied} copied`);
  };
}
