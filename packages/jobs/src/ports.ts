import type { DiskLevel, DiskMeasurementRecord } from './disk.js';
import type { GovernorLimits, JobRecord, JobRule, JobStatus, RunningJob } from './types.js';

/** A page of the job listing: newest first, keyset-paged by id. */
export interface JobListQuery {
  type?: string;
  status?: JobStatus;
  limit: number;
  /** Keyset: jobs with an id below this one (the previous page's next_cursor). */
  before?: number;
}

export interface JobList {
  /** Per status over the type filter (all statuses). */
  counts: Record<JobStatus, number>;
  jobs: JobRecord[];
  next_cursor: number | null;
}

export interface DiskStatus {
  current: DiskMeasurementRecord | null;
  history: DiskMeasurementRecord[];
}

/** The latest resource usage a worker process logged. */
export interface ResourceUsageRecord {
  measured_at: Date;
  worker_process: string;
  load_average_1m: number;
  cpu_count: number;
  memory_total_bytes: number;
  memory_free_bytes: number;
  process_rss_bytes: number;
  running_jobs: number;
  running_weight: number;
}

/** The stored facts behind GET /admin/resources (the live-room flag comes from its own port). */
export interface ResourceFacts {
  running: JobRecord[];
  queueDepth: Record<string, number>;
  rules: JobRule[];
  rooms: Array<{ room_id: string; started_at: Date }>;
  disk: DiskMeasurementRecord | null;
  workers: Array<{ process_id: string; workers: number; last_seen_at: Date }>;
  usage: ResourceUsageRecord | null;
}

/** The writes of the job admin, inside one transaction. */
export interface JobAdminTx {
  /** A job's status (its history row locked when forUpdate), or undefined when there is no such job. */
  jobStatus(id: number, options: { forUpdate: boolean }): Promise<JobStatus | undefined>;
  /** Back to the queue with attempts reset (graphile-worker job made again). */
  requeue(id: number): Promise<void>;
  /** Removes the graphile-worker job: an unlocked one is deleted, a locked one loses its key and its retries. */
  removeWorkerJob(id: number): Promise<void>;
  /** Marks a (queued) job cancelled now. */
  markCancelled(id: number): Promise<void>;
  /** Asks the worker running the job to abort it (cancel_requested_at and a notification). */
  requestCancel(id: number): Promise<void>;
  /** The rules as stored, by job type. */
  rules(): Promise<Map<string, JobRule>>;
  /** Inserts or replaces a rule; running workers are told to reload. */
  saveRule(rule: JobRule): Promise<void>;
}

/** The job admin's store: the job history, the rules, the resource logs. */
export interface JobAdminStore {
  transaction<T>(work: (tx: JobAdminTx) => Promise<T>): Promise<T>;
  listJobs(query: JobListQuery): Promise<JobList>;
  getJob(id: number): Promise<JobRecord | undefined>;
  diskStatus(historyLimit: number): Promise<DiskStatus>;
  resourceFacts(): Promise<ResourceFacts>;
}

/** A worker process, as the history and the heartbeat name it. */
export interface WorkerProcess {
  processId: string;
}

/** A job graphile-worker has fetched, as the governor's start sees it. */
export interface JobStart {
  workerJobId: string;
  jobType: string;
  payload: unknown;
  /** graphile-worker's attempt count, this attempt included. */
  attempts: number;
  maxAttempts: number;
  workerId: string;
}

export type StartDecision =
  | { kind: 'admitted'; historyId: number; rule: JobRule }
  | { kind: 'deferred'; historyId: number; reason: string }
  | { kind: 'cancelled'; historyId: number };

export type JobOutcome =
  | { kind: 'completed' }
  | { kind: 'cancelled'; error?: string }
  /** A failed attempt: `final` when no attempt is left (graphile-worker keeps it failed). */
  | { kind: 'failed'; error: string; final: boolean };

/** The governed run of one job: the strict start under the governor's lock, the end, the cancel flag. */
export interface JobRunStore {
  startJob(worker: WorkerProcess, job: JobStart, options: { liveRoomActive: boolean; limits?: GovernorLimits; deferMs: number }): Promise<StartDecision>;
  finishJob(historyId: number, outcome: JobOutcome): Promise<void>;
  isCancelRequested(historyId: number): Promise<boolean>;
}

/** One disk measurement the monitor records. */
export interface DiskMeasurement {
  path: string;
  totalBytes: number;
  freeBytes: number;
  usedPercent: number;
  level: DiskLevel;
}

/** One process's resource usage the monitor records. */
export interface ResourceUsage {
  workerProcess: string;
  loadAverage1m: number;
  cpuCount: number;
  memoryTotalBytes: number;
  memoryFreeBytes: number;
  processRssBytes: number;
}

/** What the disk monitor writes: the resource log GET /admin/resources reads. */
export interface ResourceLog {
  recordDiskStatus(measurement: DiskMeasurement): Promise<void>;
  recordResourceUsage(usage: ResourceUsage): Promise<void>;
}

/** A running listener; stop() ends it. */
export interface NoticeListener {
  stop(): Promise<void>;
}

/**
 * The governor's view of the shared job tables: the priority rules, the running set, and the
 * job notices ('rules' when rules change, 'cancel:<history id>' for a cancel).
 */
export interface GovernorSource {
  loadRules(): Promise<Map<string, JobRule>>;
  loadRunningSet(): Promise<RunningJob[]>;
  /** Listens until stopped; a lost connection is logged and remade by the adapter. */
  listen(onNotice: (payload: string) => void): Promise<NoticeListener>;
}
