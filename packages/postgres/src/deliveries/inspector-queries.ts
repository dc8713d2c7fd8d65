import { sql, type Transaction } from 'kysely';
import type { Actor } from '@inntak/access';
import { stringifyJson } from '@inntak/core';
import type { NewEdge, NewNode } from '@inntak/graph';
import { webhookLocaleOf, type InspectedRequest, type RequestDetail, type RequestSearch, type WebhookHealth } from '@inntak/intake';
import type { Database } from '../platform/index.js';
import { webhookRows } from '../intake/index.js';
import { fullViewOf } from '../graph/index.js';

/** The delivery inspector's queries (InspectorTx); who may is packages/intake's (inspector.ts). */

type Trx = Transaction<Database>;

/** How long refused requests are kept whole (the worker's prune_deliveries). */
export const KEPT_REQUEST_RETENTION_DAYS = 7;

/**
 * Requests newest first: accepted deliveries, refused requests kept whole, and the counted
 * rest of refusals (a counted row whose requests were not all kept). Each of the three is read
 * by its (webhook_id, id desc) index, `limit + 1` rows at most, then merged: every read is
 * bounded by the page whatever the filters. A search by delivery id scans at most the
 * webhook's kept rows (10,000 accepted, 7 days of refusals).
 */
export async function searchRequests(trx: Trx, webhookId: string, search: RequestSearch): Promise<{ requests: InspectedRequest[]; next_cursor: string | null }> {
  const { status, limit } = search;
  const wantAccepted = status === undefined || status === 'duplicate' || status === 200;
  const wantRefused = status === undefined || status === 'failed' || (typeof status === 'number' && status !== 200);
  const numeric = typeof status === 'number' ? status : undefined;
  const accepted = wantAccepted
    ? await trx
        .selectFrom('webhook_deliveries')
        .select(['id', 'webhook_id', 'received_at', 'status', 'error', 'node_id', 'delivery_id', 'event', 'duplicate', 'bytes', 'duration_ms', 'replay_of'])
        .where('webhook_id', '=', webhookId)
        .$if(search.before !== undefined, (q) => q.where('id', '<', search.before!))
        .$if(numeric !== undefined, (q) => q.where('status', '=', numeric!))
        .$if(status === 'duplicate', (q) => q.where('duplicate', '=', true))
        .$if(search.deliveryId !== undefined, (q) => q.where('delivery_id', '=', search.deliveryId!))
        .$if(search.event !== undefined, (q) => q.where('event', '=', search.event!))
        .$if(search.from !== undefined, (q) => q.where('received_at', '>=', search.from!))
        .$if(search.to !== undefined, (q) => q.where('received_at', '<=', search.to!))
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .execute()
    : [];
  const refused = wantRefused
    ? await trx
        .selectFrom('webhook_refused_requests')
        .select(['id', 'webhook_id', 'received_at', 'status', 'error', 'delivery_id', 'event', 'bytes', 'duration_ms'])
        .where('webhook_id', '=', webhookId)
        .$if(search.before !== undefined, (q) => q.where('id', '<', search.before!))
        .$if(numeric !== undefined, (q) => q.where('status', '=', numeric!))
        .$if(search.deliveryId !== undefined, (q) => q.where('delivery_id', '=', search.deliveryId!))
        .$if(search.event !== undefined, (q) => q.where('event', '=', search.event!))
        .$if(search.from !== undefined, (q) => q.where('received_at', '>=', search.from!))
        .$if(search.to !== undefined, (q) => q.where('received_at', '<=', search.to!))
        .orderBy('id', 'desc')
        .limit(limit + 1)
        .execute()
    : [];
  // A delivery id names one request: the counted rest has none of its own.
  const counted =
    wantRefused && search.deliveryId === undefined
      ? await trx
          .selectFrom('webhook_refusals')
          .select(['id', 'webhook_id', 'first_received_at', 'last_received_at', 'status', 'error', 'event', 'bytes', 'duration_ms', 'count', 'kept'])
          .where('webhook_id', '=', webhookId)
          .where(sql<boolean>`count > kept`)
          .$if(search.before !== undefined, (q) => q.where('id', '<', search.before!))
          .$if(numeric !== undefined, (q) => q.where('status', '=', numeric!))
          .$if(search.event !== undefined, (q) => q.where('event', '=', search.event!))
          .$if(search.from !== undefined, (q) => q.where('last_received_at', '>=', search.from!))
          .$if(search.to !== undefined, (q) => q.where('first_received_at', '<=', search.to!))
          .orderBy('id', 'desc')
          .limit(limit + 1)
          .execute()
      : [];
  const rows: InspectedRequest[] = [
    ...accepted.map(acceptedEntry),
    ...refused.map(refusedEntry),
    ...counted.map(
      (row): InspectedRequest => ({
        id: row.id,
        webhook_id: row.webhook_id,
        received_at: row.first_received_at.toISOString(),
        status: row.status,
        error: row.error,
        ...(row.event !== null ? { event: row.event } : {}),
        duplicate: false,
        bytes: Number(row.bytes),
        duration_ms: row.duration_ms,
        counted: row.count - row.kept,
        last_received_at: row.last_received_at.toISOString(),
      }),
    ),
  ].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : a.counted === undefined ? -1 : 1));
  const requests = rows.slice(0, limit);
  return { requests, next_cursor: rows.length > limit ? requests.at(-1)!.id : null };
}

type LogRow = { id: string; webhook_id: string; received_at: Date; status: number; error: string | null; delivery_id: string | null; event: string | null; bytes: string | number; duration_ms: number };

/** An accepted delivery's log row as the inspector lists it (and, with headers and body, shows it). */
function acceptedEntry(row: LogRow & { node_id: string | null; replay_of: string | null; duplicate: boolean }): InspectedRequest {
  return {
    ...refusedEntry(row),
    ...(row.node_id !== null ? { node_id: row.node_id } : {}),
    ...(row.replay_of !== null ? { replay_of: row.replay_of } : {}),
    duplicate: row.duplicate,
  };
}

/** A refused request kept whole, as the inspector lists it. */
function refusedEntry(row: LogRow): InspectedRequest {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    received_at: row.received_at.toISOString(),
    status: row.status,
    ...optional(row),
    duplicate: false,
    bytes: Number(row.bytes),
    duration_ms: row.duration_ms,
  };
}

function optional(row: { error: string | null; delivery_id: string | null; event: string | null }) {
  return {
    ...(row.error !== null ? { error: row.error } : {}),
    ...(row.delivery_id !== null ? { delivery_id: row.delivery_id } : {}),
    ...(row.event !== null ? { event: row.event } : {}),
  };
}

/**
 * One request with its kept headers and body (an accepted one's body: its node's payload, only
 * while `actor` reads that node whole: a node moved to a collection hidden from them is not
 * read through the inspector; its body is then null, as for a deleted node).
 */
export async function requestDetail(trx: Trx, actor: Actor, webhookId: string, requestId: string): Promise<RequestDetail | undefined> {
  const callerId = actor.personId;
  const accepted = await trx
    .selectFrom('webhook_deliveries as d')
    .leftJoin('nodes as n', (join) => {
      const on = join.onRef('n.id', '=', 'd.node_id');
      return callerId === null || actor.isAdmin ? on : on.on(fullViewOf(callerId, 'n'));
    })
    .select(['d.id', 'd.webhook_id', 'd.received_at', 'd.status', 'd.error', 'd.node_id', 'd.delivery_id', 'd.event', 'd.duplicate', 'd.bytes', 'd.duration_ms', 'd.replay_of', 'd.headers'])
    .select(sql<string | null>`jsonb_pretty(n.metadata -> 'payload')`.as('payload'))
    .where('d.webhook_id', '=', webhookId)
    .where('d.id', '=', requestId)
    .executeTakeFirst();
  if (accepted) {
    return {
      ...acceptedEntry(accepted),
      headers: accepted.headers,
      body: accepted.payload === null ? null : { text: accepted.payload, truncated: false, from_node: true },
    };
  }
  const refused = await trx.selectFrom('webhook_refused_requests').selectAll().where('webhook_id', '=', webhookId).where('id', '=', requestId).executeTakeFirst();
  if (!refused) return undefined;
  return {
    ...refusedEntry(refused),
    headers: refused.headers,
    body: refused.body === null ? null : { text: refused.body, truncated: refused.body_truncated, from_node: false },
  };
}

/**
 * The health view: the actor's webhooks (at most `limit`), each with its collection's title,
 * its last request (accepted or refused) and its refusals of the last hour and day. One query
 * for the webhooks, one lateral read per webhook of each log's newest row by its index, one
 * sum over the day's counted rows by their primary key.
 */
export async function webhookHealth(trx: Trx, actor: Actor, limit: number): Promise<WebhookHealth[]> {
  const webhooks = await webhookRows(trx, actor, { limit });
  if (webhooks.length === 0) return [];
  const ids = webhooks.map((w) => w.id);
  const stats = await sql<{ id: string; collection_title: string | null; last_at: Date | null; last_status: number | null; failures_hour: string; failures_day: string }>`
    select w.id, c.title as collection_title,
           case when r.last_at is null or (d.received_at is not null and d.received_at >= r.last_at) then d.received_at else r.last_at end as last_at,
           case when r.last_at is null or (d.received_at is not null and d.received_at >= r.last_at) then d.status else r.status end as last_status,
           coalesce(f.hour, 0) as failures_hour, coalesce(f.day, 0) as failures_day
      from unnest(${ids}::uuid[]) as w(id)
      left join lateral (select e.target_id from edges e where e.source_id = w.id and e.edge_type = 'belongs_to' order by e.created_at, e.id limit 1) b on true
      left join nodes c on c.id = b.target_id
      left join lateral (select received_at, status from webhook_deliveries where webhook_id = w.id order by id desc limit 1) d on true
      left join lateral (select last_received_at as last_at, status from webhook_refusals where webhook_id = w.id order by id desc limit 1) r on true
      left join lateral (select sum(count) filter (where last_received_at >= now() - interval '1 hour') as hour, sum(count) as day
                           from webhook_refusals where webhook_id = w.id and minute >= date_trunc('minute', now() - interval '1 day')) f on true`.execute(trx);
  const byId = new Map(stats.rows.map((row) => [row.id, row]));
  return webhooks.map((w) => {
    const s = byId.get(w.id);
    return {
      id: w.id,
      title: w.title,
      collection_id: w.collection_id,
      collection_title: s?.collection_title ?? null,
      template_id: w.template_id,
      signature_scheme: w.signature_scheme,
      created_at: w.created_at,
      last_delivery: s?.last_at ? { received_at: s.last_at, status: s.last_status! } : null,
      failures_hour: Number(s?.failures_hour ?? 0),
      failures_day: Number(s?.failures_day ?? 0),
    };
  });
}

/** The webhook as the intake's lookup sees it (token, collection, template, locale). */
export async function replayTarget(trx: Trx, webhookId: string): Promise<{ token: string; collectionId: string; templateId: string | null; locale: 'nb' | 'en' } | undefined> {
  const row = await trx
    .selectFrom('nodes as w')
    .innerJoin('edges as e', (join) => join.onRef('e.source_id', '=', 'w.id').on('e.edge_type', '=', 'belongs_to'))
    .select([sql<string>`w.metadata ->> 'token'`.as('token'), 'e.target_id', sql<string | null>`w.metadata ->> 'template_id'`.as('template_id'), sql<string | null>`w.metadata ->> 'locale'`.as('locale')])
    .where('w.id', '=', webhookId)
    .where('w.node_kind', '=', 'webhook')
    .orderBy('e.created_at')
    .orderBy('e.id')
    .executeTakeFirst();
  return row && { token: row.token, collectionId: row.target_id, templateId: row.template_id, locale: webhookLocaleOf(row.locale) };
}

/**
 * A replay written as the intake writes (inntak_intake_write: node, edge, access rows, log
 * row), inside the use case's transaction. Without a delivery id to the function, so the
 * duplicate check does not answer with the original; the log row then gets the original's
 * delivery id (to be found by it) and names what it replays.
 */
export async function writeReplay(
  trx: Trx,
  write: { node: NewNode; edge: NewEdge; logId: string; webhookId: string; deliveryId: string | null; event: string | null; bytes: number; headers: Record<string, string>; replayOf: string },
): Promise<void> {
  const { node, edge } = write;
  await sql`select * from inntak_intake_write(${node.id}, ${node.node_kind}, ${node.title}, ${node.content}, ${node.visibility}::visibility,
      ${stringifyJson(node.metadata)}::jsonb, ${node.created_by}, ${edge.id}, ${edge.source_id}, ${edge.target_id}, ${edge.edge_type},
      ${JSON.stringify(edge.metadata)}::jsonb, ${edge.system}, ${edge.created_by}, ${write.logId}, ${write.webhookId}, now(), null::text,
      ${write.event}::text, ${write.bytes}::bigint, 0, ${JSON.stringify(write.headers)}::jsonb)`.execute(trx);
  await trx.updateTable('webhook_deliveries').set({ delivery_id: write.deliveryId, replay_of: write.replayOf }).where('id', '=', write.logId).execute();
}
