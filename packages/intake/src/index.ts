export { IntakeWriteError, type IntakeStore, type WebhookTarget, type DeliveryLogEntry, type FailedDelivery, type WriteOutcome } from './ports.js';
export { senderDeliveryId, loggableDeliveryId, senderEvent } from './delivery-facts.js';
export { verifySignature, signaturePlausible, secretProblem, SIGNATURE_SCHEMES, type SignatureScheme, type WebhookSecret } from './signatures.js';
export {
  findWebhook,
  receiveWebhook,
  renderDelivery,
  storeDelivery,
  deliveryLogEntry,
  REDACTED_TOKEN,
  type Delivery,
  type IntakeRequest,
  type IntakeResponse,
} from './receive-webhook.js';
export { parseWebhookBody, type ParsedBody } from './parse-body.js';
export { intakeUrl, knownTemplateId } from './webhook-settings.js';
export { rerenderContent, type Rerendered } from './rerender.js';
