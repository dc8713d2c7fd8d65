import { AppError, isUuid } from '@inntak/core';
import type { Actor } from '@inntak/access';
import type { JsonObject } from '@inntak/graph';
import { rerenderContent } from '@inntak/intake';
import type { Db } from '../platform/index.js';
import type { Database } from '../platform/index.js';
import { sql, type Transaction } from 'kysely';
import { requireLevel } from '../graph/index.js';
import { requireCollectionAdmin } from '../intake/index.js';

type Trx = Transaction<Database>;

export interface RerenderResult {
  node_id: string;
  title: string | null;
  template_id: string | null;
  template_version: number | null;
}

/**
 * `rerender`: the stored payload of one webhook content node rendered again with its webhook's
 * template as it is now, for admins and owners of the node's collection. One transaction; the
 * node's update fires the usual change notification and search-document trigger.
 */
export async function rerenderNode(db: Db, actor: Actor, nodeId: string): Promise<RerenderResult> {
  return db.transaction().execute(async (trx) => {
    await requireLevel(trx, actor, nodeId, null, 'node_id');
    const node = await trx.selectFrom('nodes').select(['id', 'node_kind', 'metadata', 'created_by']).where('id', '=', nodeId).forUpdate().executeTakeFirstOrThrow();
    const metadata = node.metadata as JsonObject;
    const notFromWebhook = () => new AppError('invalid_input', { detail: 'node_id: noden kom ikke fra en webhook' });
    if (node.node_kind !== 'content' || metadata.source !== 'webhook' || typeof metadata.webhook_id !== 'string' || !isUuid(metadata.webhook_id)) {
      throw notFromWebhook();
    }
    await requireCollectionAdmin(trx, actor, nodeId, 'node_id');
    await requireVisibleWebhook(trx, actor, { webhookId: metadata.webhook_id, createdBy: node.created_by });
    if (node.created_by !== metadata.webhook_id) throw notFromWebhook();
    const templateId = await webhookTemplate(trx, metadata.webhook_id);
    return update(trx, { id: nodeId, metadata }, templateId);
  });
}

/**
 * The webhook a node's metadata names must be one the caller can see (issue 22, finding 15):
 * metadata is anyone's to write, so a node naming someone else's webhook would otherwise render
 * with, and answer, that webhook's template. One the caller cannot see answers 404 like any
 * node they cannot see, whether it exists or not. Only a node whose webhook was deleted (its
 * `created_by` was set null with it) answers 409.
 */
async function requireVisibleWebhook(trx: Trx, actor: Actor, node: { webhookId: string; createdBy: string | null }): Promise<void> {
  const exists = await trx.selectFrom('nodes').select('id').where('id', '=', node.webhookId).executeTakeFirst();
  if (!exists) {
    if (node.createdBy === null) throw new AppError('conflict', { detail: 'webhooken som leverte noden finnes ikke lenger' });
    throw new AppError('not_found', { detail: 'node_id' });
  }
  await requireLevel(trx, actor, node.webhookId, null, 'node_id');
}

/**
 * The CLI's batch: every content node of a webhook (created since `since`, after `after`), in
 * pages of `batch` nodes, each page one transaction. Returns after each page through `progress`,
 * so a run cut short can go on with `after` = the last node id it reported.
 */
export async function rerenderWebhook(
  db: Db,
  options: { webhookId: string; since?: Date; after?: string; batch?: number; progress?: (done: number, total: number, lastNodeId: string) => void },
): Promise<{ webhook_id: string; template_id: string | null; rerendered: number; last_node_id: string | null }> {
  const batch = options.batch ?? 500;
  const templateId = await webhookTemplate(db, options.webhookId);
  const nodesOfWebhook = () =>
    db
      .selectFrom('nodes')
      // Intake nodes are created_by their webhook (nodes_created_by_id_idx), ids time-ordered.
      .where('created_by', '=', options.webhookId)
      .where('node_kind', '=', 'content')
      .$if(options.since !== undefined, (q) => q.where('created_at', '>=', options.since!))
      .$if(options.after !== undefined, (q) => q.where('id', '>', options.after!));
  const { total } = await nodesOfWebhook()
    .select((eb) => eb.fn.countAll<string>().as('total'))
    .executeTakeFirstOrThrow();
  let done = 0;
  let last: string | null = null;
  for (;;) {
    const page = await nodesOfWebhook()
      .select(['id', 'metadata'])
      .$if(last !== null, (q) => q.where('id', '>', last!))
      .orderBy('id')
      .limit(batch)
      .execute();
    if (page.length === 0) break;
    await db.transaction().execute(async (trx) => {
      for (const node of page) {
        const metadata = node.metadata as JsonObject;
        if (metadata.source === 'webhook') await update(trx, { id: node.id, metadata }, templateId);
      }
    });
    done += page.length;
    last = page.at(-1)!.id;
    options.progress?.(done, Number(total), last);
  }
  return { webhook_id: options.webhookId, template_id: templateId, rerendered: done, last_node_id: last };
}

async function webhookTemplate(db: Db | Trx, webhookId: string): Promise<string | null> {
  const webhook = await db.selectFrom('nodes').select(['node_kind', 'metadata']).where('id', '=', webhookId).executeTakeFirst();
  if (!webhook || webhook.node_kind !== 'webhook') throw new AppError('conflict', { detail: 'webhooken som leverte noden finnes ikke lenger' });
  const templateId = (webhook.metadata as JsonObject).template_id;
  return typeof templateId === 'string' ? templateId : null;
}

async function update(trx: Trx, node: { id: string; metadata: JsonObject }, templateId: string | null): Promise<RerenderResult> {
  const rendered = rerenderContent(templateId, node.metadata);
  await trx
    .updateTable('nodes')
    .set({
      title: rendered.title,
      content: rendered.content,
      metadata: sql<JsonObject>`(metadata - ${rendered.removedKeys}::text[]) || ${JSON.stringify(rendered.setKeys)}::jsonb`,
    })
    .where('id', '=', node.id)
    .execute();
  const version = rendered.setKeys.template_version;
  return { node_id: node.id, title: rendered.title, template_id: rendered.templateId, template_version: typeof version === 'number' ? version : null };
}
