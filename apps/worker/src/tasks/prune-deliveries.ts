import type { Task } from 'graphile-worker';
import type { Logger } from '@inntak/core';

/**
 * The crontab's hourly trim of the delivery log (docs/deliveries.md): 30 days, at most 10,000
 * rows per webhook (accepted deliveries and counted refusals each), and delivery ids older than
 * 24 hours (they no longer make duplicates); refused requests kept whole after 7 days (the inspector).
 * Housekeeping, outside the governor: it is a few indexed deletes in batches.
 */
export function pruneDeliveriesTask(deps: {
  /** One trim of the log (packages/postgres pruneDeliveries): rows removed per kind. */
  pruneDeliveries(): Promise<{ expired: number; overLimit: number; deliveryIds: number; refusals: number; keptRequests?: number }>;
  logger: Logger;
}): Task {
  return async () => {
    const pruned = await deps.pruneDeliveries();
    deps.logger.info('delivery log pruned', { tag: 'prune_deliveries', expired: pruned.expired, over_limit: pruned.overLimit, delivery_ids: pruned.deliveryIds, refusals: pruned.refusals, kept_requests: pruned.keptRequests ?? 0 });
  };
}
