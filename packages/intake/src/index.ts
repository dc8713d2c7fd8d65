export type { IntakeStore, IntakeTransaction, WebhookTarget } from './ports.js';
export { findWebhook, receiveWebhook, REDACTED_TOKEN, type IntakeRequest, type IntakeResponse } from './receive-webhook.js';
export { intakeUrl, knownTemplateId } from './webhook-settings.js';
