export type { IntakeStore, IntakeTransaction, WebhookTarget } from './ports.js';
export { receiveWebhook, type IntakeRequest, type IntakeResponse } from './receive-webhook.js';
export { intakeUrl, knownTemplateId } from './webhook-settings.js';
