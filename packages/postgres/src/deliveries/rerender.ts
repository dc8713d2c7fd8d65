import { sql, type Transaction } from 'kysely';
import type { Actor } from '@inntak/access';
import type { JsonObject } from '@inntak/graph';
import { webhookLocaleOf, type DeliveredSince, type Locale, type Rerendered, type StoredDelivery } from '@inntak/intake';
import type { Database, Db } from '../platform/index.js';
import { hasAccessAtLeast } from '../graph/index.js';

/** The queries behind re-rendering stored deliveries (WebhookAdminTx); the use cases are packages/intake's. */

type Trx = Transaction<Database>;

/** The node as re-rendering needs it, its row locked. */
export async function storedDelivery(trx: Trx, nodeId: string): Promise<StoredDelivery | undefined> {
  const node = await trx.selectFrom('nodes').select(['node_kind', 'metadata', 'created_by']).where('id', '=', nodeId).forUpdate().executeTakeFirst();
  return node && { node_kind: node.node_kind, metadata: node.metadata as JsonObject, created_by: node.created_by };
}

/** The webhook's template id (null: generic extraction); undefined when the node is not a webhook. */
export async function webhookTemplate(db: Db | Trx, webhookId: string): Promise<string | null | undefined> {
  const webhook = await db.selectFrom('nodes').select(['node_kind', 'metadata']).where('id', '=', webhookId).executeTakeFirst();
  if (!webhook || webhook.node_kind !== 'webhook') return undefined;
  const templateId = (webhook.metadata as JsonObject).template_id;
  return typeof templateId === 'string' ? templateId : null;
}

/** The webhook's language (metadata.locale), nb when it names none or an unknown one. */
export async function webhookLocale(db: Db | Trx, webhookId: string): Promise<Locale> {
  const webhook = await db.selectFrom('nodes').select('metadata').where('id', '=', webhookId).executeTakeFirst();
  return webhookLocaleOf((webhook?.metadata as JsonObject | undefined)?.locale);
}

/** A rendering over the node's title, content and template keys (the payload and other keys stay). */
export async function writeRendering(trx: Trx, nodeId: string, rendered: Rerendered): Promise<void> {
  await trx
    .updateTable('nodes')
    .set({
      title: rendered.title,
      content: rendered.content,
      metadata: sql<JsonObject>`(metadata - ${rendered.removedKeys}::text[]) || ${JSON.stringify(rendered.setKeys)}::jsonb`,
    })
    .where('id', '=', nodeId)
    .execute();
}

/**
 * The webhook's content nodes that `actor` may re-render: admin on the node (its collection's
 * admins hold it through belongs_to), as rerender of one node asks; a node moved to a collection
 * hidden from them is not theirs to write. A system administrator and the operator: all.
 */
function deliveredBy(db: Db | Trx, actor: Actor, webhookId: string, from: DeliveredSince) {
  const callerId = actor.personId;
  return (
    db
      .selectFrom('nodes')
      // Intake nodes are created_by their webhook (nodes_created_by_id_idx), ids time-ordered.
      .where('created_by', '=', webhookId)
      .where('node_kind', '=', 'content')
      .$if(callerId !== null && !actor.isAdmin, (q) => q.where(hasAccessAtLeast(callerId!, 'admin', 'nodes')))
      .$if(from.since !== undefined, (q) => q.where('created_at', '>=', from.since!))
      .$if(from.after !== undefined, (q) => q.where('id', '>', from.after!))
  );
}

/** How many content nodes the webhook delivered (created since `since`, after `after`). */
export async function countDelivered(db: Db | Trx, actor: Actor, webhookId: string, from: DeliveredSince): Promise<number> {
  const { total } = await deliveredBy(db, actor, webhookId, from)
    .select((eb) => eb.fn.countAll<string>().as('total'))
    .executeTakeFirstOrThrow();
  return Number(total);
}

/** The next `limit` of them by id. */
export function deliveredNodes(db: Db | Trx, actor: Actor, webhookId: string, from: DeliveredSince, limit: number): Promise<Array<{ id: string; metadata: JsonObject }>> {
  return deliveredBy(db, actor, webhookId, from).select(['id', 'metadata']).orderBy('id').limit(limit).execute() as Promise<Array<{ id: string; metadata: JsonObject }>>;
}
