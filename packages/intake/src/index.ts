export { IntakeWriteError, type IntakeStore, type WebhookTarget } from './ports.js';
export {
  findWebhook,
  receiveWebhook,
  renderDelivery,
  storeDelivery,
  REDACTED_TOKEN,
  type Delivery,
  type IntakeRequest,
  type IntakeResponse,
} from './receive-webhook.js';
export { parseWebhookBody, type ParsedBody } from './parse-body.js';
export { intakeUrl, knownTemplateId } from './webhook-settings.js';
