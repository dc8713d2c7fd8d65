import { randomUUID } from 'node:crypto';
import { AppError, isUuid } from '@inntak/core';
import { checkPage, DIRECTORY_PAGE, nextCursor, nodeKindRule, requireLevel, type AccessLevel, type Actor, type DirectoryPage } from '@inntak/access';
import type { Locale } from '@inntak/templates';
import type { AdministeredWebhook, WebhookAdminStore, WebhookAdminTx } from './ports.js';

/**
 * Who may make and manage a webhook, from the write policy's webhook row: that level on its
 * collection. The stores' lists of administered webhooks filter by it too.
 */
export const WEBHOOK_NEED = nodeKindRule('webhook').write as AccessLevel;

/**
 * Webhook administration. Who administers a webhook: whoever holds admin or owner on the
 * collection it belongs to, and system administrators. Only they ever see its token.
 * Template ids are checked by the caller (the API, the CLI) against the template registry.
 */

export interface WebhookInput {
  collectionId: string;
  templateId?: string | null;
  /** The language its template writes in (docs/templates.md#language); absent: nb. */
  locale?: Locale;
  title?: string | null;
  /** Who the node and edge are recorded as made by; default the actor. */
  createdBy?: string | null;
}

/**
 * create_webhook: a webhook node (secret token in its metadata) with its `belongs_to` edge to
 * the collection (admin on it); the collection's access rows are copied to it like to any member.
 */
export function createWebhook(store: WebhookAdminStore, actor: Actor, input: WebhookInput): Promise<{ id: string; token: string; edgeId: string }> {
  return store.transaction((tx) => createWebhookIn(tx, actor, input));
}

/** create_webhook inside a caller's transaction (a webhook made with its signing secret: delivery-admin.ts). */
export async function createWebhookIn(tx: WebhookAdminTx, actor: Actor, input: WebhookInput): Promise<{ id: string; token: string; edgeId: string }> {
  if (!isUuid(input.collectionId)) throw new AppError('invalid_input', { detail: 'collection_id: forventet UUID' });
  const collection = await requireLevel(tx, actor, input.collectionId, WEBHOOK_NEED, 'collection_id');
  if (collection.node_kind !== 'collection') throw new AppError('not_found', { detail: 'collection_id' });
  const token = randomUUID();
  const created = await tx.insertWebhook({
    collectionId: input.collectionId,
    token,
    templateId: input.templateId || null,
    locale: input.locale ?? null,
    title: input.title ?? null,
    createdBy: input.createdBy ?? actor.personId,
  });
  return { ...created, token };
}

/** set_template: the webhook's payload template (null: generic extraction). */
export function setWebhookTemplate(
  store: WebhookAdminStore,
  actor: Actor,
  input: { webhook_id: string; template_id: string | null; locale?: Locale },
): Promise<AdministeredWebhook> {
  return store.transaction(async (tx) => {
    await requireWebhookAdmin(tx, actor, input.webhook_id);
    await tx.setWebhookTemplate(input.webhook_id, input.template_id, input.locale);
    return (await tx.administeredWebhooks(actor, { id: input.webhook_id }))[0]!;
  });
}

/** rename_webhook: the webhook's name (its node's title), shown in lists and the console; null clears it. */
export function renameWebhook(store: WebhookAdminStore, actor: Actor, input: { webhook_id: string; title: string | null }): Promise<AdministeredWebhook> {
  const title = input.title?.trim() || null;
  if (title !== null && title.length > 500) throw new AppError('invalid_input', { detail: 'title: kan være høyst 500 tegn' });
  return store.transaction(async (tx) => {
    await requireWebhookAdmin(tx, actor, input.webhook_id);
    await tx.setWebhookTitle(input.webhook_id, title);
    return (await tx.administeredWebhooks(actor, { id: input.webhook_id }))[0]!;
  });
}

/** delete_webhook: the webhook node and its edges, its delivery log; content it created stays in the collection. */
export function deleteWebhook(store: WebhookAdminStore, actor: Actor, input: { webhook_id: string }): Promise<{ id: string }> {
  return store.transaction(async (tx) => {
    await requireWebhookAdmin(tx, actor, input.webhook_id);
    await tx.deleteWebhook(input.webhook_id);
    return { id: input.webhook_id };
  });
}

/** The collections the actor may create a webhook in (admin or owner on them), at most 200: the console's select. */
export function webhookCollections(store: WebhookAdminStore, actor: Actor): Promise<Array<{ id: string; title: string | null }>> {
  return store.transaction((tx) => tx.administeredCollections(actor, 200));
}

/**
 * The webhooks one page holds: the directory's limit (at most 200) and cursor. The default is
 * the maximum, not the directory's 50: the list was read whole before it was paged, and anyone
 * with up to 200 webhooks still gets all of them from a call without `limit`.
 */
export const WEBHOOK_PAGE = { default: DIRECTORY_PAGE.max, max: DIRECTORY_PAGE.max } as const;

/**
 * The webhooks the actor administers, one keyset page in the order they were made (id order, a
 * UUIDv7); `next_cursor` is the last id of a full page, null on the last one.
 */
export async function listWebhooks(store: WebhookAdminStore, actor: Actor, page: DirectoryPage): Promise<{ webhooks: AdministeredWebhook[]; next_cursor: string | null }> {
  const { limit, after } = checkPage(page);
  const rows = await store.transaction((tx) => tx.administeredWebhooks(actor, { limit: limit + 1, after }));
  return { webhooks: rows.slice(0, limit), next_cursor: nextCursor(rows, limit) };
}

/** One webhook, if the actor administers it. */
export async function findAdministeredWebhook(store: WebhookAdminStore, actor: Actor, webhookId: string): Promise<AdministeredWebhook | undefined> {
  return (await store.transaction((tx) => tx.administeredWebhooks(actor, { id: webhookId })))[0];
}

/**
 * Who administers a webhook: admin or owner on its collection, or a system administrator. A
 * caller who cannot see the webhook gets 404, one who can but is not its admin 403.
 */
export async function requireWebhookAdmin(tx: WebhookAdminTx, actor: Actor, webhookId: string): Promise<void> {
  const webhook = await requireLevel(tx, actor, webhookId, null, 'webhook_id');
  if (webhook.node_kind !== 'webhook') throw new AppError('not_found', { detail: 'webhook_id' });
  await requireCollectionAdmin(tx, actor, webhookId, 'webhook_id');
}

/**
 * Admin or owner on the collection a node belongs to (its first `belongs_to`): who administers
 * a webhook and what it delivered. No collection: 404 naming `field`.
 */
export async function requireCollectionAdmin(tx: WebhookAdminTx, actor: Actor, nodeId: string, field: string): Promise<void> {
  const collectionId = await tx.firstCollectionOf(nodeId);
  if (collectionId === undefined) throw new AppError('not_found', { detail: field });
  await requireLevel(tx, actor, collectionId, WEBHOOK_NEED, field);
}
