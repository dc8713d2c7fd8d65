// Deliveries (docs/deliveries.md): the delivery log and its pruning, webhook signing secrets,
// re-rendering stored payloads (the queries; packages/intake's use cases run over them). The
// intake's own write of a delivery is in ../intake.
export { pruneDeliveries, DELIVERY_RETENTION, type DeliveryView, type DeliveryStatusFilter } from './delivery-log.js';
export { PostgresDeliveriesStore } from './deliveries-store.js';
export { KEPT_REQUEST_RETENTION_DAYS } from './inspector-queries.js';
export type { RerenderResult } from '@inntak/intake';
