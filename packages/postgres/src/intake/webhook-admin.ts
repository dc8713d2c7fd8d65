import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import { AppError, isUuid } from '@inntak/core';
import { OPERATOR, type Actor } from '@inntak/access';
import type { JsonObject } from '@inntak/graph';
import type { SignatureScheme } from '@inntak/intake';
import type { Db } from '../platform/index.js';
import type { Database } from '../platform/index.js';
import { requireLevel } from '../graph/index.js';
import { deleteEdges, insertEdge, insertNode } from '../graph/index.js';
import { hasAccessAtLeast } from '../graph/index.js';

/**
 * Webhook administration. Who administers a webhook: whoever holds admin or owner on the
 * collection it belongs to, and system administrators. Only they ever see its token.
 * Template ids are checked by the caller (the API, the CLI) against the template registry.
 */

type Trx = Transaction<Database>;

export interface WebhookInput {
  collectionId: string;
  templateId?: string | null;
  title?: string | null;
  createdBy?: string | null;
}

export interface AdministeredWebhook {
  id: string;
  title: string | null;
  token: string;
  template_id: string | null;
  collection_id: string;
  /** The signature scheme requests must be signed with, or null (docs/deliveries.md); never the secret. */
  signature_scheme: SignatureScheme | null;
  created_at: Date;
}

/**
 * A webhook node (secret token in its metadata) with its `belongs_to` edge to the collection;
 * the collection's access rows are copied to it like to any member.
 */
export async function createWebhook(
  db: Db,
  input: WebhookInput,
  actor: Actor = OPERATOR,
): Promise<{ id: string; token: string; edgeId: string }> {
  return db.transaction().execute(async (trx) => {
    if (!isUuid(input.collectionId)) throw new AppError('invalid_input', { detail: 'collection_id: forventet UUID' });
    const collection = await requireLevel(trx, actor, input.collectionId, 'admin', 'collection_id');
    if (collection.node_kind !== 'collection') throw new AppError('not_found', { detail: 'collection_id' });
    const token = randomUUID();
    const createdBy = input.createdBy ?? actor.personId;
    const id = await insertNode(trx, {
      node_kind: 'webhook',
      title: input.title ?? null,
      metadata: input.templateId ? { token, template_id: input.templateId } : { token },
      created_by: createdBy,
    });
    const edgeId = await insertEdge(trx, { source_id: id, target_id: input.collectionId, edge_type: 'belongs_to', created_by: createdBy });
    return { id, token, edgeId };
  });
}

export async function setWebhookTemplate(db: Db, actor: Actor, input: { webhook_id: string; template_id: string | null }): Promise<AdministeredWebhook> {
  return db.transaction().execute(async (trx) => {
    await requireWebhookAdmin(trx, actor, input.webhook_id);
    const metadata = input.template_id === null ? sql<JsonObject>`metadata - 'template_id'` : sql<JsonObject>`metadata || jsonb_build_object('template_id', ${input.template_id}::text)`;
    await trx.updateTable('nodes').set({ metadata }).where('id', '=', input.webhook_id).execute();
    return (await webhookRows(trx, actor, input.webhook_id))[0]!;
  });
}

/** A fresh token; the old one stops working at once (intake answers 404 to it). */
export async function rotateWebhookToken(db: Db, actor: Actor, input: { webhook_id: string }): Promise<AdministeredWebhook> {
  return db.transaction().execute(async (trx) => {
    await requireWebhookAdmin(trx, actor, input.webhook_id);
    await trx
      .updateTable('nodes')
      .set({ metadata: sql<JsonObject>`metadata || jsonb_build_object('token', ${randomUUID()}::text)` })
      .where('id', '=', input.webhook_id)
      .execute();
    return (await webhookRows(trx, actor, input.webhook_id))[0]!;
  });
}

/** Deletes the webhook node and its edges; content it created stays in the collection. */
export async function deleteWebhook(db: Db, actor: Actor, input: { webhook_id: string }): Promise<{ id: string }> {
  return db.transaction().execute(async (trx) => {
    await requireWebhookAdmin(trx, actor, input.webhook_id);
    const edges = await trx.selectFrom('edges').select('id').where((eb) => eb.or([eb('source_id', '=', input.webhook_id), eb('target_id', '=', input.webhook_id)])).execute();
    await deleteEdges(
      trx,
      edges.map((e) => e.id),
    );
    await trx.deleteFrom('nodes').where('id', '=', input.webhook_id).execute();
    // Its delivery log and claimed delivery ids go with it (no foreign keys: docs/deliveries.md);
    // its secret by the foreign key's cascade.
    await trx.deleteFrom('webhook_deliveries').where('webhook_id', '=', input.webhook_id).execute();
    await trx.deleteFrom('webhook_refusals').where('webhook_id', '=', input.webhook_id).execute();
    await trx.deleteFrom('webhook_delivery_ids').where('webhook_id', '=', input.webhook_id).execute();
    return { id: input.webhook_id };
  });
}

/** The webhooks the actor administers, oldest first. */
export function listWebhooks(db: Db | Trx, actor: Actor): Promise<AdministeredWebhook[]> {
  return webhookRows(db, actor);
}

/** One webhook, if the actor administers it. */
export async function findAdministeredWebhook(db: Db | Trx, actor: Actor, webhookId: string): Promise<AdministeredWebhook | undefined> {
  return (await webhookRows(db, actor, webhookId))[0];
}

function webhookRows(db: Db | Trx, actor: Actor, webhookId?: string): Promise<AdministeredWebhook[]> {
  const callerId = actor.personId;
  return db
    .selectFrom('nodes as w')
    .innerJoin('edges as e', (join) => join.onRef('e.source_id', '=', 'w.id').on('e.edge_type', '=', 'belongs_to'))
    .innerJoin('nodes as c', 'c.id', 'e.target_id')
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
    .$if(webhookId !== undefined, (q) => q.where('w.id', '=', webhookId!))
    .$if(!actor.isAdmin, (q) => q.where(hasAccessAtLeast(callerId!, 'admin', 'c')))
    .orderBy('w.created_at')
    .orderBy('w.id')
    .execute();
}

/**
 * Who administers a webhook: admin or owner on its collection, or a system administrator. A
 * caller who cannot see the webhook gets 404, one who can but is not its admin 403.
 */
export async function requireWebhookAdmin(trx: Db | Trx, actor: Actor, webhookId: string): Promise<void> {
  const webhook = await requireLevel(trx, actor, webhookId, null, 'webhook_id');
  if (webhook.node_kind !== 'webhook') throw new AppError('not_found', { detail: 'webhook_id' });
  await requireCollectionAdmin(trx, actor, webhookId, 'webhook_id');
}

/**
 * Admin or owner on the collection a node belongs to (its first `belongs_to`): who administers
 * a webhook and what it delivered. No collection: 404 naming `field`.
 */
export async function requireCollectionAdmin(trx: Db | Trx, actor: Actor, nodeId: string, field: string): Promise<void> {
  const edge = await trx
    .selectFrom('edges')
    .select('target_id')
    .where('source_id', '=', nodeId)
    .where('edge_type', '=', 'belongs_to')
    .orderBy('created_at')
    .executeTakeFirst();
  if (!edge) throw new AppError('not_found', { detail: field });
  await requireLevel(trx, actor, edge.target_id, 'admin', field);
}
