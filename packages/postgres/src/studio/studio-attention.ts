import { sql } from 'kysely';
import type { Actor } from '@inntak/access';
import { WEBHOOK_NEED } from '@inntak/intake';
import type { FailingWebhook } from '@inntak/studio';
import type { Db } from '../platform/index.js';
import { hasAccessAtLeast } from '../graph/index.js';

/** The person node's title, the name the console shows in its header. */
export async function personName(db: Db, personId: string): Promise<string | null> {
  const row = await db.selectFrom('nodes').select('title').where('id', '=', personId).where('node_kind', '=', 'person').executeTakeFirst();
  const name = row?.title?.trim();
  return name ? name : null;
}

/**
 * The smallest UUIDv7 of a moment: delivery log ids are UUIDv7 of their arrival (core ids.ts), so
 * `id >= this` walks the (webhook_id, id) index from that moment on instead of the whole log.
 */
function firstIdAt(at: Date): string {
  const hex = Math.max(0, at.getTime()).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`;
}

/**
 * Webhooks the actor administers (as requireWebhookAdmin: admin or owner on the webhook's
 * collection, the target of its first belongs_to, so not an admin of a second one; system
 * administrators every one) with refused requests (webhook_refusals, by minute: the
 * primary key's range) or logged deliveries other than 200 (webhook_deliveries, by id) since
 * `since`. Each webhook costs two index range scans over the window; the retention (30 days,
 * 10,000 rows a webhook and table) bounds them.
 */
export async function failingWebhooks(db: Db, actor: Actor, since: Date, limit: number): Promise<{ webhooks: FailingWebhook[]; total: number }> {
  const callerId = actor.personId;
  const administers = actor.isAdmin ? sql<boolean>`true` : callerId === null ? sql<boolean>`false` : hasAccessAtLeast(callerId, WEBHOOK_NEED, 'c');
  const { rows } = await sql<{ id: string; title: string | null; refused: string; failed: string; last_at: Date; total: string }>`
    with mine as (
      select w.id, w.title
      from nodes w
      cross join lateral (select e.target_id from edges e where e.source_id = w.id and e.edge_type = 'belongs_to' order by e.created_at, e.id limit 1) e
      join nodes c on c.id = e.target_id
      where w.node_kind = 'webhook' and ${administers}),
    counted as (
      select m.id, m.title, coalesce(r.n, 0) as refused, coalesce(d.n, 0) as failed, greatest(r.last_at, d.last_at) as last_at
      from mine m
      left join lateral (
        select sum(x.count) as n, max(x.last_received_at) as last_at from webhook_refusals x
        where x.webhook_id = m.id and x.minute >= date_trunc('minute', ${since}::timestamptz) and x.last_received_at >= ${since}) r on true
      left join lateral (
        select count(*) as n, max(x.received_at) as last_at from webhook_deliveries x
        where x.webhook_id = m.id and x.id >= ${firstIdAt(since)}::uuid and x.received_at >= ${since} and x.status <> 200) d on true)
    select *, count(*) over () as total from counted
    where refused + failed > 0
    order by refused + failed desc, last_at desc, id
    limit ${limit}`.execute(db);
  return {
    webhooks: rows.map((r) => ({ id: r.id, title: r.title, refused: Number(r.refused), failed: Number(r.failed), lastAt: r.last_at })),
    total: rows.length ? Number(rows[0]!.total) : 0,
  };
}
