export type { Database, NodeRow, EdgeRow } from './schema.js';
export { openDatabase, withClient, type Db, type DatabaseHandle, type DatabaseOptions } from './database.js';
export { migrate, MIGRATIONS_DIR, type MigrationReport } from './migrate.js';
export { startEmbeddedPostgres, spawnEmbeddedPostgres, type EmbeddedServer } from './embedded-server.js';
export { PostgresIntakeStore } from './intake-store.js';
export { PostgresIdentityDirectory } from './identity-directory.js';
export { propagateBelongsTo, refreshAccess, type AccessPair } from './access-propagation.js';
export { hasAccess, hasAccessAtLeast, nodeVisibleTo, accessLevelOf, edgeVisibleTo, audienceFacts, visibleNodeParts, type VisiblePart } from './read-filter.js';
export { ChangeListener, CHANGE_CHANNELS, LISTENER_APPLICATION_NAME, type ChangeNotice, type ChangeChannel, type ChangeListenerOptions } from './change-listener.js';
export { readChanges, type Change, type ChangeOp } from './change-reader.js';
export { loadInitialSync, type InitialSync, type InitialSyncBounds } from './initial-sync.js';
export {
  createPerson,
  createCollection,
  createNode,
  createEdge,
  deleteEdge,
  grantAccess,
  revokeAccess,
  type NewNodeInput,
  type NewEdgeInput,
} from './graph-writes.js';
export {
  createWebhook,
  setWebhookTemplate,
  rotateWebhookToken,
  deleteWebhook,
  listWebhooks,
  findAdministeredWebhook,
  type AdministeredWebhook,
  type WebhookInput,
} from './webhook-admin.js';
export { createTestDatabase, openTestDatabase, type TestDatabase, type OpenTestDatabase } from './test-database.js';
export { readNode } from './node-reads.js';
export { queryNodes, PostgresNodeQueryStore, SEARCH_TIMEOUT_MS, type QueryOptions } from './node-query.js';
export { readDatabaseStats, type DatabaseStats, type TableStats, type IndexStats } from './database-stats.js';
export type { JobQueueRow, JobPriorityRuleRow } from './schema.js';
export {
  enqueueJob,
  loadRules,
  loadRunningSet,
  newWorkerProcess,
  startJob,
  finishJob,
  isCancelRequested,
  registerWorker,
  heartbeat,
  unregisterWorkerProcess,
  reconcileDeadWorkers,
  toJobRule,
  type EnqueueOptions,
  type WorkerProcess,
  type JobStart,
  type StartDecision,
  type JobOutcome,
  type ReconcileReport,
} from './job-store.js';
export { PostgresLiveRoomStatus, startLiveRoom, endLiveRoom } from './live-rooms.js';
export { recordDiskStatus, recordResourceUsage, RESOURCE_LOG_RETENTION, type DiskMeasurement, type ResourceUsage } from './resource-log.js';
export {
  JOBS_CHANNEL,
  listJobs,
  getJob,
  retryJob,
  cancelJob,
  updateRule,
  ruleView,
  diskStatus,
  resourceStatus,
  toJobView,
  type JobView,
  type JobList,
  type JobListQuery,
} from './job-admin.js';
