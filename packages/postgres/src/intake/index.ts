// Webhook intake's store and webhook administration.
export { PostgresIntakeStore, INTAKE_STATEMENTS } from './intake-store.js';
export {
  createWebhook,
  setWebhookTemplate,
  rotateWebhookToken,
  deleteWebhook,
  listWebhooks,
  findAdministeredWebhook,
  requireWebhookAdmin,
  requireCollectionAdmin,
  type AdministeredWebhook,
  type WebhookInput,
} from './webhook-admin.js';
