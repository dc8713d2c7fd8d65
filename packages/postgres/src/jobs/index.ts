// The job queue: job store, job admin, live rooms, resource log.
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
  postgresJobRuns,
  type EnqueueOptions,
  type WorkerProcess,
  type JobStart,
  type StartDecision,
  type JobOutcome,
  type ReconcileReport,
} from './job-store.js';
export { PostgresLiveRoomStatus, startLiveRoom, endLiveRoom } from './live-rooms.js';
export { recordDiskStatus, recordResourceUsage, postgresResourceLog, RESOURCE_LOG_RETENTION, type DiskMeasurement, type ResourceUsage } from './resource-log.js';
export {
  JOBS_CHANNEL,
  listJobs,
  getJob,
  retryJob,
  cancelJob,
  updateRule,
  diskStatus,
  resourceStatus,
  toJobRecord,
  PostgresJobAdminStore,
} from './job-admin.js';
export { PostgresGovernorSource } from './governor-source.js';
