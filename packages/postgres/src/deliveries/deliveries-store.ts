import type { DeliveredSince, DeliveriesStore, DeliveriesTx, DeliveryPage, Rerendered, WebhookSecret } from '@inntak/intake';
import type { Db } from '../platform/index.js';
import { PostgresWebhookAdminTx } from '../intake/index.js';
import { deliveryLog } from './delivery-log.js';
import { countDelivered, deliveredNodes, storedDelivery, webhookLocale, webhookTemplate, writeRendering } from './rerender.js';
import { writeWebhookSecret } from './webhook-secret.js';

/** One deliveries transaction: webhook administration's queries and the delivery log's, secrets', re-rendering's. */
export class PostgresDeliveriesTx extends PostgresWebhookAdminTx implements DeliveriesTx {
  setWebhookSecret = (webhookId: string, secret: WebhookSecret | null) => writeWebhookSecret(this.trx, webhookId, secret);
  deliveryLog = (webhookId: string, page: DeliveryPage) => deliveryLog(this.trx, webhookId, page);
  storedDelivery = (nodeId: string) => storedDelivery(this.trx, nodeId);
  webhookTemplate = (webhookId: string) => webhookTemplate(this.trx, webhookId);
  webhookLocale = (webhookId: string) => webhookLocale(this.trx, webhookId);
  writeRendering = (nodeId: string, rendered: Rerendered) => writeRendering(this.trx, nodeId, rendered);
  countDelivered = (webhookId: string, from: DeliveredSince) => countDelivered(this.trx, webhookId, from);
  deliveredNodes = (webhookId: string, from: DeliveredSince, limit: number) => deliveredNodes(this.trx, webhookId, from, limit);
}

/** The deliveries port (packages/intake) on PostgreSQL. */
export class PostgresDeliveriesStore implements DeliveriesStore {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (tx: PostgresDeliveriesTx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new PostgresDeliveriesTx(trx)));
  }
}
