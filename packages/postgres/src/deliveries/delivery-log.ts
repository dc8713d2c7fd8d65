import { sql } from 'kysely';
import type { DeliveryPage, DeliveryView } from '@inntak/intake';
import type { Db } from '../platform/index.js';
import { KEPT_REQUEST_RETENTION_DAYS } from './inspector-queries.js';

export type { DeliveryView, DeliveryStatusFilter } from '@inntak/intake';

/**
 * A webhook's delivery log, newest first: accepted deliveries and counted refusals, merged.
 * Keyset pages on the row id (UUIDv7 of the arrival; of a refusal row, its first request's).
 */
export async function deliveryLog(db: Db, webhookId: string, page: DeliveryPage): Promise<{ deliveries: DeliveryView[]; next_cursor: string | null }> {
  const { status } = page;
  const wantAccepted = status === undefined || status === 'duplicate' || status === 200;
  const wantRefused = status === undefined || status === 'failed' || (typeof status === 'number' && status !== 200);
  const accepted = wantAccepted
    ? await db
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('webhook_id', '=', webhookId)
        .$if(page.before !== undefined, (q) => q.where('id', '<', page.before!))
        .$if(typeof status === 'number', (q) => q.where('status', '=', status as number))
        .$if(status === 'duplicate', (q) => q.where('duplicate', '=', true))
        .orderBy('id', 'desc')
        .limit(page.limit + 1)
        .execute()
    : [];
  const refused = wantRefused
    ? await db
        .selectFrom('webhook_refusals')
        .selectAll()
        .where('webhook_id', '=', webhookId)
        .$if(page.before !== undefined, (q) => q.where('id', '<', page.before!))
        .$if(typeof status === 'number', (q) => q.where('status', '=', status as number))
        .orderBy('id', 'desc')
        .limit(page.limit + 1)
        .execute()
    : [];
  const rows: DeliveryView[] = [
    ...accepted.map(
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
        ...(row.previous_token ? { previous_token: true } : {}),
      }),
    ),
    ...refused.map(
      (row): DeliveryView => ({
        id: row.id,
        webhook_id: row.webhook_id,
        received_at: row.first_received_at.toISOString(),
        status: row.status,
        error: row.error,
        ...(row.delivery_id !== null ? { delivery_id: row.delivery_id } : {}),
        ...(row.event !== null ? { event: row.event } : {}),
        duplicate: false,
        bytes: Number(row.bytes),
        duration_ms: row.duration_ms,
        count: row.count,
        last_received_at: row.last_received_at.toISOString(),
        ...(row.previous_token ? { previous_token: true } : {}),
      }),
    ),
  ].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  const deliveries = rows.slice(0, page.limit);
  return { deliveries, next_cursor: rows.length > page.limit ? deliveries.at(-1)!.id : null };
}

/**
 * How long and how many log rows are kept, and how many rows one prune statement deletes. The
 * per-webhook limit applies to accepted deliveries and to refusal rows separately, so refusals
 * never push accepted deliveries out.
 */
export const DELIVERY_RETENTION = { days: 30, perWebhook: 10_000, batch: 5_000 } as const;

/**
 * Drops log rows (accepted deliveries and counted refusals) older than 30 days and beyond the
 * newest 10,000 of each webhook in each table, and claimed delivery ids older than 24 hours
 * (they no longer make duplicates). In batches, each its own statement, so no run holds many
 * locks or one long transaction.
 */
export async function pruneDeliveries(
  db: Db,
  retention: { days: number; perWebhook: number; batch: number } = DELIVERY_RETENTION,
): Promise<{ expired: number; overLimit: number; deliveryIds: number; refusals: number; keptRequests: number }> {
  const batched = async (statement: () => Promise<bigint | number>) => {
    let total = 0;
    for (;;) {
      const deleted = Number(await statement());
      total += deleted;
      if (deleted < retention.batch) return total;
    }
  };
  const trim = async (table: 'webhook_deliveries' | 'webhook_refusals', arrived: 'received_at' | 'last_received_at') => {
    const log = sql.table(table);
    const expired = await batched(async () => {
      const result = await sql`delete from ${log} where id in (
          select id from ${log} where ${sql.ref(arrived)} < now() - make_interval(days => ${retention.days}) limit ${retention.batch})`.execute(db);
      return result.numAffectedRows ?? 0n;
    });
    // Each webhook past the limit: everything older than its perWebhook-th newest row.
    const crowded = await db
      .selectFrom(table)
      .select('webhook_id')
      .groupBy('webhook_id')
      .having(sql`count(*)`, '>', retention.perWebhook)
      .execute();
    let overLimit = 0;
    for (const { webhook_id } of crowded) {
      overLimit += await batched(async () => {
        const result = await sql`delete from ${log} where id in (
            select id from ${log} where webhook_id = ${webhook_id} and id < (
              select id from ${log} where webhook_id = ${webhook_id} order by id desc offset ${retention.perWebhook - 1} limit 1)
            limit ${retention.batch})`.execute(db);
        return result.numAffectedRows ?? 0n;
      });
    }
    return { expired, overLimit };
  };
  const accepted = await trim('webhook_deliveries', 'received_at');
  const refused = await trim('webhook_refusals', 'last_received_at');
  // Refused requests kept whole (headers, body): 7 days (migration 036), by their own index.
  const keptRequests = await batched(async () => {
    const result = await sql`delete from webhook_refused_requests where id in (
        select id from webhook_refused_requests where received_at < now() - make_interval(days => ${KEPT_REQUEST_RETENTION_DAYS}) limit ${retention.batch})`.execute(db);
    return result.numAffectedRows ?? 0n;
  });
  const deliveryIds = await batched(async () => {
    const result = await sql`delete from webhook_delivery_ids where ctid in (
        select ctid from webhook_delivery_ids where claimed_at < now() - interval '24 hours' limit ${retention.batch})`.execute(db);
    return result.numAffectedRows ?? 0n;
  });
  return { expired: accepted.expired, overLimit: accepted.overLimit, deliveryIds, refusals: refused.expired + refused.overLimit, keptRequests };
}
