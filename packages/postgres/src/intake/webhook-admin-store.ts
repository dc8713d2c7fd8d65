import type { Transaction } from 'kysely';
import type { Actor } from '@inntak/access';
import type { WebhookAdminStore, WebhookAdminTx } from '@inntak/intake';
import type { Database, Db } from '../platform/index.js';
import { levelOn, nodeKindOf } from '../graph/index.js';
import {
  administeredCollections,
  deleteWebhookRows,
  endPreviousTokenGrace,
  firstCollectionOf,
  insertPreviousToken,
  insertWebhookNode,
  previousTokenRows,
  updateWebhookTemplate,
  updateWebhookTitle,
  updateWebhookToken,
  webhookRows,
} from './webhook-queries.js';

/** One webhook-administration transaction's reads and writes: the queries, nothing decided here. */
export class PostgresWebhookAdminTx implements WebhookAdminTx {
  constructor(protected readonly trx: Transaction<Database>) {}
  levelOn = (actor: Actor, nodeId: string) => levelOn(this.trx, actor, nodeId);
  nodeKindOf = (nodeId: string) => nodeKindOf(this.trx, nodeId);
  firstCollectionOf = (nodeId: string) => firstCollectionOf(this.trx, nodeId);
  insertWebhook = (webhook: Parameters<WebhookAdminTx['insertWebhook']>[0]) => insertWebhookNode(this.trx, webhook);
  setWebhookTemplate = (webhookId: string, templateId: string | null, locale?: string) => updateWebhookTemplate(this.trx, webhookId, templateId, locale);
  setWebhookToken = (webhookId: string, token: string) => updateWebhookToken(this.trx, webhookId, token);
  keepPreviousToken = (webhookId: string, tokenHash: string, graceSeconds: number) => insertPreviousToken(this.trx, webhookId, tokenHash, graceSeconds);
  endPreviousTokens = (webhookId: string) => endPreviousTokenGrace(this.trx, webhookId);
  previousTokens = (webhookId: string, limit: number) => previousTokenRows(this.trx, webhookId, limit);
  administeredCollections = (actor: Actor, limit: number) => administeredCollections(this.trx, actor, limit);
  setWebhookTitle = (webhookId: string, title: string | null) => updateWebhookTitle(this.trx, webhookId, title);
  deleteWebhook = (webhookId: string) => deleteWebhookRows(this.trx, webhookId);
  administeredWebhooks = (actor: Actor, which: Parameters<WebhookAdminTx['administeredWebhooks']>[1]) => webhookRows(this.trx, actor, which);
}

/** The webhook-administration port (packages/intake) on PostgreSQL: each transaction one kysely transaction. */
export class PostgresWebhookAdminStore implements WebhookAdminStore {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (tx: PostgresWebhookAdminTx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(new PostgresWebhookAdminTx(trx)));
  }
}
