import { AppError, isUuid } from '@inntak/core';
import { requireLevel, type Actor } from '@inntak/access';
import type { DeliveriesStore, DeliveriesTx, DeliveryPage, DeliveryView } from './ports.js';
import { rerenderContent } from './rerender.js';
import { secretProblem, type SignatureScheme } from './signatures.js';
import { createWebhookIn, requireCollectionAdmin, requireWebhookAdmin, type WebhookInput } from './webhook-admin.js';

/**
 * A webhook's delivery log, newest first, for its administrators (admin or owner on its
 * collection) and system administrators: accepted deliveries and counted refusals, merged.
 * Keyset pages on the row id (UUIDv7 of the arrival; of a refusal row, its first request's).
 */
export function listDeliveries(store: DeliveriesStore, actor: Actor, webhookId: string, page: DeliveryPage): Promise<{ deliveries: DeliveryView[]; next_cursor: string | null }> {
  return store.transaction(async (tx) => {
    await requireWebhookAdmin(tx, actor, webhookId);
    return tx.deliveryLog(webhookId, page);
  });
}

/**
 * create_webhook with a signing secret (the console's form): the webhook and its secret in one
 * transaction, so a webhook meant to be signed is never left behind unsigned (taking unsigned
 * deliveries) when the secret's write fails. The secret is checked before anything is written.
 */
export async function createSignedWebhook(
  store: DeliveriesStore,
  actor: Actor,
  input: WebhookInput & { signing: { scheme: SignatureScheme; secret: string } | null },
): Promise<{ id: string; token: string; edgeId: string }> {
  const { signing, ...webhook } = input;
  if (signing) {
    const problem = secretProblem(signing.scheme, signing.secret);
    if (problem) throw new AppError('invalid_input', { detail: `secret: ${problem}` });
  }
  return store.transaction(async (tx) => {
    const created = await createWebhookIn(tx, actor, webhook);
    if (signing) await tx.setWebhookSecret(created.id, signing);
    return created;
  });
}

/**
 * set_webhook_secret: sets or removes (`none`) a webhook's signing secret. The answer names the
 * scheme only: the secret is never read back by anything but the intake's token lookup.
 */
export async function setWebhookSecret(
  store: DeliveriesStore,
  actor: Actor,
  input: { webhook_id: string; scheme: SignatureScheme | 'none'; secret?: string | null },
): Promise<{ webhook_id: string; scheme: SignatureScheme | 'none' }> {
  const { webhook_id, scheme } = input;
  if (scheme !== 'none') {
    const problem = input.secret == null ? 'mangler' : secretProblem(scheme, input.secret);
    if (problem) throw new AppError('invalid_input', { detail: `secret: ${problem}` });
  }
  return store.transaction(async (tx) => {
    await requireWebhookAdmin(tx, actor, webhook_id);
    await tx.setWebhookSecret(webhook_id, scheme === 'none' ? null : { scheme, secret: input.secret! });
    return { webhook_id, scheme };
  });
}

export interface RerenderResult {
  node_id: string;
  title: string | null;
  template_id: string | null;
  template_version: number | null;
}

const WEBHOOK_GONE = 'webhooken som leverte noden finnes ikke lenger';

/**
 * rerender: the stored payload of one webhook content node rendered again with its webhook's
 * template as it is now, for admins and owners of the node's collection. One transaction; the
 * node's update fires the usual change notification and search-document trigger.
 */
export function rerenderNode(store: DeliveriesStore, actor: Actor, nodeId: string): Promise<RerenderResult> {
  return store.transaction(async (tx) => {
    await requireLevel(tx, actor, nodeId, null, 'node_id');
    const node = (await tx.storedDelivery(nodeId))!;
    const { metadata } = node;
    const notFromWebhook = () => new AppError('invalid_input', { detail: 'node_id: noden kom ikke fra en webhook' });
    if (node.node_kind !== 'content' || metadata.source !== 'webhook' || typeof metadata.webhook_id !== 'string' || !isUuid(metadata.webhook_id)) {
      throw notFromWebhook();
    }
    await requireCollectionAdmin(tx, actor, nodeId, 'node_id');
    await requireVisibleWebhook(tx, actor, { webhookId: metadata.webhook_id, createdBy: node.created_by });
    if (node.created_by !== metadata.webhook_id) throw notFromWebhook();
    const templateId = await tx.webhookTemplate(metadata.webhook_id);
    if (templateId === undefined) throw new AppError('conflict', { detail: WEBHOOK_GONE });
    const rendered = rerenderContent(templateId, metadata, await tx.webhookLocale(metadata.webhook_id));
    await tx.writeRendering(nodeId, rendered);
    const version = rendered.setKeys.template_version;
    return { node_id: nodeId, title: rendered.title, template_id: rendered.templateId, template_version: typeof version === 'number' ? version : null };
  });
}

/**
 * The webhook a node's metadata names must be one the caller can see (issue 22, finding 15):
 * metadata is anyone's to write, so a node naming someone else's webhook would otherwise render
 * with, and answer, that webhook's template. One the caller cannot see answers 404 like any
 * node they cannot see, whether it exists or not. Only a node whose webhook was deleted (its
 * `created_by` was set null with it) answers 409.
 */
async function requireVisibleWebhook(tx: DeliveriesTx, actor: Actor, node: { webhookId: string; createdBy: string | null }): Promise<void> {
  if ((await tx.nodeKindOf(node.webhookId)) === undefined) {
    if (node.createdBy === null) throw new AppError('conflict', { detail: WEBHOOK_GONE });
    throw new AppError('not_found', { detail: 'node_id' });
  }
  await requireLevel(tx, actor, node.webhookId, null, 'node_id');
}

/**
 * Re-renders every content node a webhook delivered (created since `since`, after `after`) with
 * its current template, for the webhook's administrators (the console's form) and the operator
 * (`inntak webhook rerender`): of those nodes, the ones the caller may re-render one by one (admin
 * on the node; not one moved to a collection hidden from them). In pages of `batch` nodes, each page one transaction; `started`
 * hears the total, `progress` each page, so a run cut short can go on with `after` = the last
 * node id it reported.
 */
export async function rerenderWebhook(
  store: DeliveriesStore,
  actor: Actor,
  options: {
    webhookId: string;
    since?: Date;
    after?: string;
    batch?: number;
    started?: (total: number) => void;
    progress?: (done: number, total: number, lastNodeId: string) => void;
  },
): Promise<{ webhook_id: string; template_id: string | null; rerendered: number; last_node_id: string | null }> {
  const { webhookId, since } = options;
  const batch = options.batch ?? 500;
  const { templateId, locale, total } = await store.transaction(async (tx) => {
    await requireWebhookAdmin(tx, actor, webhookId);
    const templateId = await tx.webhookTemplate(webhookId);
    if (templateId === undefined) throw new AppError('conflict', { detail: WEBHOOK_GONE });
    return { templateId, locale: await tx.webhookLocale(webhookId), total: await tx.countDelivered(actor, webhookId, { since, after: options.after }) };
  });
  options.started?.(total);
  let done = 0;
  let last: string | null = null;
  for (;;) {
    const after = last ?? options.after;
    const page = await store.transaction(async (tx) => {
      const nodes = await tx.deliveredNodes(actor, webhookId, { since, after }, batch);
      for (const node of nodes) {
        if (node.metadata.source === 'webhook') await tx.writeRendering(node.id, rerenderContent(templateId, node.metadata, locale));
      }
      return nodes;
    });
    if (page.length === 0) break;
    done += page.length;
    last = page.at(-1)!.id;
    options.progress?.(done, total, last);
  }
  return { webhook_id: webhookId, template_id: templateId, rerendered: done, last_node_id: last };
}
