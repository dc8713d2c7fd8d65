// Deliveries (docs/deliveries.md): the delivery log and its pruning, webhook signing secrets,
// re-rendering stored payloads. The intake's own write of a delivery is in ../intake.
export { listDeliveries, pruneDeliveries, DELIVERY_RETENTION, type DeliveryView, type DeliveryStatusFilter } from './delivery-log.js';
export { setWebhookSecret } from './webhook-secret.js';
export { rerenderNode, rerenderWebhook, type RerenderResult } from './rerender.js';
