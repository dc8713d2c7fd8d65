import { OPERATOR, type Actor } from '@inntak/access';
import * as intake from '@inntak/intake';
import type { Db } from '../platform/index.js';
import { PostgresWebhookAdminStore } from './webhook-admin-store.js';

/*
 * The webhook administration use cases (packages/intake) over this adapter, with the
 * signatures the CLI and the adapter's tests call. Nothing is decided here.
 */

const store = (db: Db) => new PostgresWebhookAdminStore(db);

/** create_webhook; the CLI (and tests) act as the operator. */
export function createWebhook(db: Db, input: intake.WebhookInput, actor: Actor = OPERATOR): Promise<{ id: string; token: string; edgeId: string }> {
  return intake.createWebhook(store(db), actor, input);
}

export function setWebhookTemplate(db: Db, actor: Actor, input: { webhook_id: string; template_id: string | null }): Promise<intake.AdministeredWebhook> {
  return intake.setWebhookTemplate(store(db), actor, input);
}
