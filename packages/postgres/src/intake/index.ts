// Webhook intake's store and webhook administration's (the queries; the use cases are packages/intake's).
export { PostgresIntakeStore, INTAKE_STATEMENTS } from './intake-store.js';
export { PostgresWebhookAdminStore, PostgresWebhookAdminTx } from './webhook-admin-store.js';
export type { AdministeredWebhook, WebhookInput } from '@inntak/intake';
export { webhookRows } from './webhook-queries.js';
