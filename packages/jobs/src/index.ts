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
export type { JobPayloads, JobPayload, OrchestrationCascade } from './payloads.js';
export { cachedLiveRoomStatus, LIVE_ROOM_CACHE_MS, type LiveRoomStatus } from './live-room.js';
export { PermanentJobError, NotImplementedJobError } from './errors.js';
