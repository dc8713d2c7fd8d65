import type { Actor } from '@inntak/access';
import * as intake from '@inntak/intake';
import type { Db } from '../platform/index.js';
import { PostgresDeliveriesStore } from './deliveries-store.js';

/*
 * The deliveries use cases (packages/intake: delivery-admin.ts) over this adapter, with the
 * signatures the CLI calls. Nothing is decided here.
 */

export function listDeliveries(db: Db, actor: Actor, webhookId: string, page: intake.DeliveryPage): Promise<{ deliveries: intake.DeliveryView[]; next_cursor: string | null }> {
  return intake.listDeliveries(new PostgresDeliveriesStore(db), actor, webhookId, page);
}

export function setWebhookSecret(
  db: Db,
  actor: Actor,
  input: { webhook_id: string; scheme: intake.SignatureScheme | 'none'; secret?: string | null },
): Promise<{ webhook_id: string; scheme: intake.SignatureScheme | 'none' }> {
  return intake.setWebhookSecret(new PostgresDeliveriesStore(db), actor, input);
}

export function rerenderNode(db: Db, actor: Actor, nodeId: string): Promise<intake.RerenderResult> {
  return intake.rerenderNode(new PostgresDeliveriesStore(db), actor, nodeId);
}
