import { sql } from 'kysely';
import type { Actor } from '@inntak/access';
import type { Db } from '../platform/index.js';
import { requireWebhookAdmin } from '../intake/index.js';

/** One row of a webhook's delivery log as admins read it (docs/deliveries.md). */
export interface DeliveryView {
  id: string;
  webhook_id: string;
  received_at: string;
  status: number;
  error?: string;
  node_id?: string;
  edge_id?: string;
  delivery_id?: string;
  event?: string;
  duplicate: boolean;
  bytes: number;
  duration_ms: number;
}

/** `status` filter: one HTTP status, `failed` (anything but 200), or `duplicate`. */
export type DeliveryStatusFilter = number | 'failed' | 'duplicate';

/**
 * A webhook's delivery log, newest first, for its administrators (admin or owner on its
 * collection) and system administrators. Keyset pages on the row id (UUIDv7 of the arrival).
 */
export async function listDeliveries(
  db: Db,
  actor: Actor,
  webhookId: string,
  page: { limit: number; before?: string; status?: DeliveryStatusFilter },
): Promise<{ deliveries: DeliveryView[]; next_cursor: string | null }> {
  await requireWebhookAdmin(db, actor, webhookId);
  const { status } = page;
  const rows = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('webhook_id', '=', webhookId)
    .$if(page.before !== undefined, (q) => q.where('id', '<', page.before!))
    .$if(typeof status === 'number', (q) => q.where('status', '=', status as number))
    .$if(status === 'failed', (q) => q.where('status', '<>', 200))
    .$if(status === 'duplicate', (q) => q.where('duplicate', '=', true))
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
  const deliveries = rows.slice(0, page.limit).map(
    (row): DeliveryView => ({
      id: row.id,
      webhook_id: row.webhook_id,
      received_at: row.received_at.toISOString(),
      status: row.status,
      // Absent facts are left out rather than null, as in the content nodes' metadata.
      ...(row.error !== null ? { error: row.error } : {}),
      ...(row.node_id !== null ? { node_id: row.node_id } : {}),
      ...(row.edge_id !== null ? { edge_id: row.edge_id } : {}),
      ...(row.delivery_id !== null ? { delivery_id: row.delivery_id } : {}),
      ...(row.event !== null ? { event: row.event } : {}),
      duplicate: row.duplicate,
      bytes: Number(row.bytes),
      duration_ms: row.duration_ms,
    }),
  );
  return { deliveries, next_cursor: rows.length > page.limit ? deliveries.at(-1)!.id : null };
}

/** How long and how many deliveries are kept, and how many rows one prune statement deletes. */
export const DELIVERY_RETENTION = { days: 30, perWebhook: 10_000, batch: 5_000 } as const;

/**
 * Drops log rows older than 30 days and beyond the newest 10,000 of each webhook, and claimed
 * delivery ids older than 24 hours (they no longer make duplicates). In batches, each its own
 * statement, so no run holds many locks or one long transaction.
 */
export async function pruneDeliveries(
  db: Db,
  retention: { days: number; perWebhook: number; batch: number } = DELIVERY_RETENTION,
): Promise<{ expired: number; overLimit: number; deliveryIds: number }> {
  const batched = async (statement: () => Promise<bigint | number>) => {
    let total = 0;
    for (;;) {
      const deleted = Number(await statement());
      total += deleted;
      if (deleted < retention.batch) return total;
    }
  };
  const expired = await batched(async () => {
    const result = await sql`delete from webhook_deliveries where id in (
        select id from webhook_deliveries where received_at < now() - make_interval(days => ${retention.days}) limit ${retention.batch})`.execute(db);
    return result.numAffectedRows ?? 0n;
  });
  // Each webhook past the limit: everything older than its perWebhook-th newest row.
  const crowded = await db
    .selectFrom('webhook_deliveries')
    .select('webhook_id')
    .groupBy('webhook_id')
    .having(sql`count(*)`, '>', retention.perWebhook)
    .execute();
  let overLimit = 0;
  for (const { webhook_id } of crowded) {
    overLimit += await batched(async () => {
      const result = await sql`delete from webhook_deliveries where id in (
          select id from webhook_deliveries where webhook_id = ${webhook_id} and id < (
            select id from webhook_deliveries where webhook_id = ${webhook_id} order by id desc offset ${retention.perWebhook - 1} limit 1)
          limit ${retention.batch})`.execute(db);
      return result.numAffectedRows ?? 0n;
    });
  }
  const deliveryIds = await batched(async () => {
    const result = await sql`delete from webhook_delivery_ids where ctid in (
        select ctid from webhook_delivery_ids where claimed_at < now() - interval '24 hours' limit ${retention.batch})`.execute(db);
    return result.numAffectedRows ?? 0n;
  });
  return { expired, overLimit, deliveryIds };
}
