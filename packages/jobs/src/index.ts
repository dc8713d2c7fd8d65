// @inntak/jobs owns: job types and their payload schemas (payloads.ts), states and transitions,
// the governor's decisions, disk classification, and the job admin use cases (job-admin.ts) over
// the JobAdminStore port (ports.ts; PostgreSQL: packages/postgres/src/jobs).
export {
  JOB_TYPES,
  JOB_STATUSES,
  DEFAULT_LIMITS,
  DEFAULT_TIMEOUT_SECONDS,
  defaultRule,
  type KnownJobType,
  type JobStatus,
  type JobRule,
  type GovernorLimits,
  type RunningJob,
  type JobRecord,
} from './types.js';
export { canTransition, assertRetryable, assertCancellable } from './transitions.js';
export { admit, forbiddenTypes, effectivePriority, ruleFor, validateRule, type GovernorView, type Admission } from './governor.js';
export { classifyDisk, usedPercent, DISK_LEVELS, DISK_THRESHOLDS, type DiskLevel, type DiskUsage, type DiskProbe, type DiskMeasurementRecord } from './disk.js';
export { JOB_PAYLOAD_SCHEMAS, parseJobPayload, type JobPayloads, type JobPayload, type OrchestrationCascade } from './payloads.js';
export { cachedLiveRoomStatus, LIVE_ROOM_CACHE_MS, type LiveRoomStatus } from './live-room.js';
export { PermanentJobError, NotImplementedJobError } from './errors.js';
export type { JobRunStore, WorkerProcess, JobStart, StartDecision, JobOutcome, JobAdminStore, JobAdminTx, JobList, JobListQuery, DiskStatus, ResourceFacts, ResourceUsageRecord, DiskMeasurement, ResourceUsage, ResourceLog, GovernorSource, NoticeListener } from './ports.js';
export { listJobs, getJob, retryJob, cancelJob, updateRule, diskStatus, resourceStatus, type RuleChange, type ResourceStatus } from './job-admin.js';
