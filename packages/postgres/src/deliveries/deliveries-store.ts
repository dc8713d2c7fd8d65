import type { Actor } from '@inntak/access';
import type { DeliveredSince, DeliveriesStore, DeliveryPage, InspectorStore, InspectorTx, RequestSearch, Rerendered, WebhookSecret } from '@inntak/intake';
import type { Db } from '../platform/index.js';
import { PostgresWebhookAdminTx } from '../intake/index.js';
import { deliveryLog } from './delivery-log.js';
import { countDelivered, deliveredNodes, storedDelivery, webhookLocale, webhookTemplate, writeRendering } from './rerender.js';
import { writeWebhookSecret } from './webhook-secret.js';
import { replayTarget, requestDetail, searchRequests, webhookHealth, writeReplay } from './inspector-queries.js';

/** One deliveries transaction: webhook administration's queries and the delivery log's, secrets', re-rendering's. */
export class PostgresDeliveriesTx extends PostgresWebhookAdminTx implements InspectorTx {
  setWebhookSecret = (webhookId: string, secret: WebhookSecret | null) => writeWebhookSecret(this.trx, webhookId, secret);
  deliveryLog = (webhookId: string, page: DeliveryPage) => deliveryLog(this.trx, webhookId, page);
  storedDelivery = (nodeId: string) => storedDelivery(this.trx, nodeId);
  webhookTemplate = (webhookId: string) => webhookTemplate(this.trx, webhookId);
  webhookLocale = (webhookId: string) => webhookLocale(this.trx, webhookId);
  writeRendering = (nodeId: string, rendered: Rerendered) => writeRendering(this.trx, nodeId, rendered);
  countDelivered = (actor: Actor, webhookId: string, from: DeliveredSince) => countDelivered(this.trx, actor, webhookId, from);
  deliveredNodes = (actor: Actor, webhookId: string, from: DeliveredSince, limit: number) => deliveredNodes(this.trx, actor, webhookId, from, limit);
  searchRequests = (webhookId: string, search: RequestSearch) => searchRequests(this.trx, webhookId, search);
  requestDetail = (actor: Actor, webhookId: string, requestId: string) => requestDetail(this.trx, actor, webhookId, requestId);
  webhookHealth = (actor: Actor, limit: number) => webhookHealth(this.trx, actor, limit);
  replayTarget = (webhookId: string) => replayTarget(this.trx, webhookId);
  writeReplay = (write: Parameters<InspectorTx['writeReplay']>[0]) => writeReplay(this.trx, write);
}

/** The deliveries port (packages/intake) on PostgreSQL. */
export class PostgresDeliveriesStore implements DeliveriesStore, InspectorStore {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (tx: PostgresDeliveriesTx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new PostgresDeliveriesTx(trx)));
  }
}
