export {
  IntakeWriteError,
  AlreadyWrittenError,
  type IntakeStore,
  type WebhookTarget,
  type DeliveryLogEntry,
  type FailedDelivery,
  type WriteOutcome,
  type WebhookAdminStore,
  type WebhookAdminTx,
  type DeliveriesStore,
  type DeliveriesTx,
  type AdministeredWebhook,
  type DeliveryView,
  type DeliveryStatusFilter,
  type DeliveryPage,
  type StoredDelivery,
  type DeliveredSince,
  type PreviousToken,
} from './ports.js';
export { SpoolFullError, tokenHash, type Spool, type SpoolEntry, type SpooledEntry, type SpoolStats, type KeptTarget, encodeEntry, decodeEntry, encodeTarget, decodeTarget } from './spool.js';
export { WebhookTargetCache, WEBHOOK_TARGET_CHANNELS, type WebhookTargetSource } from './webhook-target-cache.js';
export { SpoolingIntakeStore, type SpoolingIntakeOptions, type SpoolSnapshot } from './spooling-intake-store.js';
export { CachedLookupStore } from './cached-lookup-store.js';
export { GroupCommit, type BatchIntakeStore, type ContentWrite, type GroupCommitOptions } from './group-commit.js';
export { createWebhook, renameWebhook, webhookCollections, setWebhookTemplate, deleteWebhook, listWebhooks, WEBHOOK_PAGE, WEBHOOK_NEED, findAdministeredWebhook, requireWebhookAdmin, requireCollectionAdmin, type WebhookInput } from './webhook-admin.js';
export {
  rotateWebhookToken,
  endTokenGrace,
  listPreviousTokens,
  graceHours,
  DEFAULT_GRACE_HOURS,
  MAX_GRACE_HOURS,
} from './token-rotation.js';
export { listDeliveries, setWebhookSecret, createSignedWebhook, rerenderNode, rerenderWebhook, type RerenderResult } from './delivery-admin.js';
export { senderDeliveryId, loggableDeliveryId, senderEvent } from './delivery-facts.js';
export { verifySignature, signaturePlausible, secretProblem, SIGNATURE_SCHEMES, type SignatureScheme, type WebhookSecret } from './signatures.js';
export { findWebhook, renderDelivery, REDACTED_TOKEN, type Delivery, type IntakeResponse } from './receive-webhook.js';
export {
  receiveWebhook,
  deliveryInHand,
  admitDelivery,
  acceptDelivery,
  refuseDelivery,
  INLINE_RENDERER,
  type Admission,
  type BodyTask,
  type DeliveryRenderer,
  type DeliveryRequest,
  type IncomingDelivery,
  type IntakeDeps,
} from './intake-door.js';
export {
  listWebhookHealth,
  searchRequests,
  inspectRequest,
  replayDelivery,
  HEALTH_LIMIT,
  type InspectedRequest,
  type RequestDetail,
  type RequestSearch,
  type WebhookHealth,
  type InspectorTx,
  type InspectorStore,
} from './inspector.js';
export { keptHeaders, keptBody, maskedHeader, signatureRefusalReason, MASKED, BODY_CAP_BYTES, HEADER_CAPS } from './request-capture.js';
export { parseWebhookBody, type ParsedBody } from './parse-body.js';
export { intakeUrl, knownTemplateId } from './webhook-settings.js';
export { rerenderContent, webhookLocaleOf, type Rerendered } from './rerender.js';
export type { Locale } from '@inntak/templates';
