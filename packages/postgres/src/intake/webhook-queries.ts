import { sql, type Transaction } from 'kysely';
import type { Actor } from '@inntak/access';
import type { JsonObject } from '@inntak/graph';
import { WEBHOOK_NEED, type AdministeredWebhook, type PreviousToken, type SignatureScheme } from '@inntak/intake';
import type { Database, Db } from '../platform/index.js';
import { deleteEdges, hasAccessAtLeast, insertEdge, insertNode } from '../graph/index.js';

/** The queries behind webhook administration (WebhookAdminTx); who may is packages/intake's. */

type Trx = Transaction<Database>;

/** A webhook node (token and template in its metadata) and its belongs_to edge to the collection. */
export async function insertWebhookNode(
  trx: Trx,
  webhook: { collectionId: string; token: string; templateId: string | null; locale: string | null; title: string | null; createdBy: string | null },
): Promise<{ id: string; edgeId: string }> {
  const { token, templateId, createdBy } = webhook;
  const metadata: JsonObject = templateId ? { token, template_id: templateId } : { token };
  if (webhook.locale) metadata.locale = webhook.locale;
  const id = await insertNode(trx, { node_kind: 'webhook', title: webhook.title, metadata, created_by: createdBy });
  const edgeId = await insertEdge(trx, { source_id: id, target_id: webhook.collectionId, edge_type: 'belongs_to', created_by: createdBy });
  return { id, edgeId };
}

export async function updateWebhookTemplate(trx: Trx, webhookId: string, templateId: string | null, locale?: string): Promise<void> {
  const withTemplate = templateId === null ? sql<JsonObject>`metadata - 'template_id'` : sql<JsonObject>`metadata || jsonb_build_object('template_id', ${templateId}::text)`;
  const metadata = locale === undefined ? withTemplate : sql<JsonObject>`${withTemplate} || jsonb_build_object('locale', ${locale}::text)`;
  await trx.updateTable('nodes').set({ metadata }).where('id', '=', webhookId).execute();
}

export async function updateWebhookToken(trx: Trx, webhookId: string, token: string): Promise<void> {
  await trx
    .updateTable('nodes')
    .set({ metadata: sql<JsonObject>`metadata || jsonb_build_object('token', ${token}::text)` })
    .where('id', '=', webhookId)
    .execute();
}

export async function insertPreviousToken(trx: Trx, webhookId: string, tokenHash: string, graceSeconds: number): Promise<void> {
  await trx
    .insertInto('webhook_previous_tokens')
    .values({ token_hash: tokenHash, webhook_id: webhookId, grace_until: sql<Date>`now() + make_interval(secs => ${graceSeconds}::double precision)` })
    .execute();
}

export async function endPreviousTokenGrace(trx: Trx, webhookId: string): Promise<number> {
  const ended = await trx
    .updateTable('webhook_previous_tokens')
    .set({ grace_until: sql<Date>`now()`, ended_early: true })
    .where('webhook_id', '=', webhookId)
    .where('grace_until', '>', sql<Date>`now()`)
    .executeTakeFirst();
  return Number(ended.numUpdatedRows);
}

export async function previousTokenRows(trx: Trx, webhookId: string, limit: number): Promise<PreviousToken[]> {
  const rows = await trx
    .selectFrom('webhook_previous_tokens')
    .select(['rotated_at', 'grace_until', 'ended_early', 'hits', 'last_hit_at', sql<boolean>`grace_until > now()`.as('active')])
    .where('webhook_id', '=', webhookId)
    .orderBy('rotated_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ ...row, hits: Number(row.hits) }));
}

export async function updateWebhookTitle(trx: Trx, webhookId: string, title: string | null): Promise<void> {
  await trx.updateTable('nodes').set({ title }).where('id', '=', webhookId).execute();
}

/** The webhook node and its edges; its delivery log and claimed delivery ids; its secret by cascade. */
export async function deleteWebhookRows(trx: Trx, webhookId: string): Promise<void> {
  const edges = await trx.selectFrom('edges').select('id').where((eb) => eb.or([eb('source_id', '=', webhookId), eb('target_id', '=', webhookId)])).execute();
  await deleteEdges(
    trx,
    edges.map((e) => e.id),
  );
  await trx.deleteFrom('nodes').where('id', '=', webhookId).execute();
  // Its delivery log and claimed delivery ids go with it (no foreign keys: docs/deliveries.md);
  // its secret by the foreign key's cascade.
  await trx.deleteFrom('webhook_deliveries').where('webhook_id', '=', webhookId).execute();
  await trx.deleteFrom('webhook_refusals').where('webhook_id', '=', webhookId).execute();
  await trx.deleteFrom('webhook_refused_requests').where('webhook_id', '=', webhookId).execute();
  await trx.deleteFrom('webhook_delivery_ids').where('webhook_id', '=', webhookId).execute();
}

/** The collection a node belongs to: the target of its first belongs_to edge. */
export async function firstCollectionOf(trx: Db | Trx, nodeId: string): Promise<string | undefined> {
  const edge = await trx
    .selectFrom('edges')
    .select('target_id')
    .where('source_id', '=', nodeId)
    .where('edge_type', '=', 'belongs_to')
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
  return edge?.target_id;
}

/**
 * The webhooks whose collection the actor holds admin on (every one for a system administrator):
 * the one named, or at most `limit` after `after`. The collection is the target of the first
 * belongs_to (firstCollectionOf, what requireWebhookAdmin judges), so a second belongs_to neither
 * lists a webhook twice nor shows it, token and all, to an admin of that other node. A page walks
 * the (node_kind, id) index from `after` and stops at `limit`.
 */
export function webhookRows(db: Db | Trx, actor: Actor, which: { id: string } | { limit: number; after?: string }): Promise<AdministeredWebhook[]> {
  const callerId = actor.personId;
  const { id, limit, after }: { id?: string; limit?: number; after?: string } = which;
  return db
    .selectFrom('nodes as w')
    .innerJoinLateral(
      (eb) => eb.selectFrom('edges as e').select('e.target_id').whereRef('e.source_id', '=', 'w.id').where('e.edge_type', '=', 'belongs_to').orderBy('e.created_at').orderBy('e.id').limit(1).as('b'),
      (join) => join.onTrue(),
    )
    .innerJoin('nodes as c', 'c.id', 'b.target_id')
    .leftJoin('webhook_secrets as s', 's.webhook_id', 'w.id')
    .select([
      sql<SignatureScheme | null>`s.scheme`.as('signature_scheme'),
      'w.id',
      'w.title',
      sql<string>`w.metadata ->> 'token'`.as('token'),
      sql<string | null>`w.metadata ->> 'template_id'`.as('template_id'),
      'c.id as collection_id',
      'w.created_at',
    ])
    .where('w.node_kind', '=', 'webhook')
    .$if(id !== undefined, (q) => q.where('w.id', '=', id!))
    .$if(after !== undefined, (q) => q.where('w.id', '>', after!))
    .$if(!actor.isAdmin, (q) => q.where(hasAccessAtLeast(callerId!, WEBHOOK_NEED, 'c')))
    .orderBy('w.id')
    .$if(limit !== undefined, (q) => q.limit(limit!))
    .execute();
}

/** The collections the actor may make webhooks in (WEBHOOK_NEED on them; every one for a system administrator), by title, at most `limit`. */
export function administeredCollections(db: Db | Trx, actor: Actor, limit: number): Promise<Array<{ id: string; title: string | null }>> {
  return db
    .selectFrom('nodes as c')
    .select(['c.id', 'c.title'])
    .where('c.node_kind', '=', 'collection')
    .$if(!actor.isAdmin, (q) => q.where(hasAccessAtLeast(actor.personId!, WEBHOOK_NEED, 'c')))
    .orderBy('c.title')
    .orderBy('c.id')
    .limit(limit)
    .execute();
}
