import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import {
  cancelJob,
  diskStatus,
  DISK_LEVELS,
  DEFAULT_LIMITS,
  JOB_STATUSES,
  listJobs,
  resourceStatus,
  retryJob,
  updateRule,
  type DiskMeasurementRecord,
  type JobAdminStore,
  type JobRecord,
  type JobRule,
  type LiveRoomStatus,
  type ResourceStatus,
} from '@inntak/jobs';
import { latestPruneRun, type MediaStore } from '@inntak/media';
import type { RouteRegistry } from '../route-registry.js';
import { Timestamp, UpdateRuleBody, ruleChangeOf } from '../schemas.js';

export interface JobAdminDeps {
  store: JobAdminStore;
  liveRooms: LiveRoomStatus;
  /** For the last pruning run in GET /admin/resources. */
  media: MediaStore;
}

const JobId = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const JobStatus = z.enum(JOB_STATUSES);

const Job = z.object({
  id: z.number().int(),
  job_type: z.string(),
  status: JobStatus,
  payload: z.unknown(),
  priority: z.number().int(),
  attempts: z.number().int(),
  max_attempts: z.number().int(),
  last_error: z.string().nullable(),
  worker_id: z.string().nullable(),
  worker_process: z.string().nullable(),
  cpu_weight: z.number().int(),
  queued_at: Timestamp,
  run_at: Timestamp,
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  duration_ms: z.number().int().nullable(),
  cancel_requested_at: Timestamp.nullable(),
});

const Rule = z.object({
  job_type: z.string(),
  base_priority: z.number().int(),
  cpu_weight: z.number().int(),
  max_concurrent: z.number().int(),
  livekit_priority_adj: z.number().int(),
  block_during_livekit: z.boolean(),
  timeout: z.number().int().describe('seconds'),
});

const DiskMeasurement = z.object({
  measured_at: Timestamp,
  path: z.string(),
  total_bytes: z.number(),
  free_bytes: z.number(),
  used_percent: z.number(),
  level: z.enum(DISK_LEVELS),
});

const Resources = z.object({
  limits: z.object({ max_running: z.number().int(), max_weight: z.number().int() }),
  running: z.array(z.object({ id: z.number().int(), job_type: z.string(), cpu_weight: z.number().int(), worker_process: z.string().nullable(), started_at: Timestamp.nullable() })),
  running_weight: z.number().int(),
  queue_depth: z.record(z.string(), z.number().int()),
  rules: z.array(Rule),
  live_room: z.object({ active: z.boolean(), rooms: z.array(z.object({ room_id: z.string(), started_at: Timestamp })) }),
  disk: DiskMeasurement.nullable(),
  workers: z.array(z.object({ process_id: z.string(), workers: z.number().int(), last_seen_at: Timestamp })),
  usage: z
    .object({
      measured_at: Timestamp,
      worker_process: z.string(),
      load_average_1m: z.number(),
      cpu_count: z.number().int(),
      memory_total_bytes: z.number(),
      memory_free_bytes: z.number(),
      process_rss_bytes: z.number(),
      running_jobs: z.number().int(),
      running_weight: z.number().int(),
    })
    .nullable(),
  pruning: z
    .object({
      mode: z.enum(['run', 'dry_run']),
      trigger: z.string(),
      started_at: Timestamp,
      finished_at: Timestamp,
      disk_percent: z.number(),
      deleted: z.array(z.object({ id: z.string(), media_type: z.string(), bytes: z.number(), reason: z.string() })),
      freed_bytes: z.number(),
      swept: z.array(z.object({ kind: z.string(), key: z.string() })),
    })
    .nullable()
    .describe('the last pruning run (docs/media.md)'),
});

// The JSON shapes of the job admin: the schemas above, and the mappings from the adapter's
// domain records to them (dates as ISO text, durations derived).

type JobJson = z.infer<typeof Job>;

function toJobView(job: JobRecord): JobJson {
  return {
    id: job.id,
    job_type: job.job_type,
    status: job.status,
    payload: job.payload,
    priority: job.priority,
    attempts: job.attempts,
    max_attempts: job.max_attempts,
    last_error: job.last_error,
    worker_id: job.worker_id,
    worker_process: job.worker_process,
    cpu_weight: job.cpu_weight,
    queued_at: job.queued_at.toISOString(),
    run_at: job.run_at.toISOString(),
    started_at: job.started_at?.toISOString() ?? null,
    finished_at: job.finished_at?.toISOString() ?? null,
    duration_ms: job.started_at && job.finished_at ? job.finished_at.getTime() - job.started_at.getTime() : null,
    cancel_requested_at: job.cancel_requested_at?.toISOString() ?? null,
  };
}

function ruleView(rule: JobRule): z.infer<typeof Rule> {
  return {
    job_type: rule.jobType,
    base_priority: rule.basePriority,
    cpu_weight: rule.cpuWeight,
    max_concurrent: rule.maxConcurrent,
    livekit_priority_adj: rule.livekitPriorityAdj,
    block_during_livekit: rule.blockDuringLivekit,
    timeout: rule.timeoutSeconds,
  };
}

function diskView(disk: DiskMeasurementRecord): z.infer<typeof DiskMeasurement> {
  return { ...disk, measured_at: disk.measured_at.toISOString() };
}

function resourcesView(status: ResourceStatus): Omit<z.infer<typeof Resources>, 'pruning'> {
  return {
    limits: { max_running: DEFAULT_LIMITS.maxRunning, max_weight: DEFAULT_LIMITS.maxWeight },
    running: status.running.map((job) => ({
      id: job.id,
      job_type: job.job_type,
      cpu_weight: job.cpu_weight,
      worker_process: job.worker_process,
      started_at: job.started_at?.toISOString() ?? null,
    })),
    running_weight: status.running.reduce((sum, job) => sum + job.cpu_weight, 0),
    queue_depth: status.queueDepth,
    rules: status.rules.map(ruleView),
    live_room: {
      active: status.liveRoom.active,
      rooms: status.liveRoom.rooms.map((r) => ({ room_id: r.room_id, started_at: r.started_at.toISOString() })),
    },
    disk: status.disk && diskView(status.disk),
    workers: status.workers.map((w) => ({ ...w, last_seen_at: w.last_seen_at.toISOString() })),
    usage: status.usage && { ...status.usage, measured_at: status.usage.measured_at.toISOString() },
  };
}

const TAGS = ['jobs'];
const ADMIN = 'System administrators only (table system_admins, `inntak person add --admin`); see docs/jobs.md.';


/** The job listing, the retry/cancel intentions and the resource endpoints (docs/jobs.md). */
export function installJobAdmin(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: JobAdminDeps): void {
  registry.route(
    app,
    {
      method: 'get',
      path: '/admin/jobs',
      summary: 'Job listing with status counts, filtered by type and status, newest first',
      description: `${ADMIN} Keyset pagination: pass next_cursor as cursor. counts are per status over the type filter.`,
      tags: TAGS,
      auth: 'jwt',
      query: z.object({
        type: z.string().min(1).max(63).optional(),
        status: JobStatus.optional(),
        limit: z.coerce.number().int().min(1).max(200).default(50),
        cursor: JobId.optional(),
      }),
      response: {
        status: 200,
        schema: z.object({ counts: z.record(JobStatus, z.number().int()), jobs: z.array(Job), next_cursor: z.number().int().nullable() }),
      },
      errors: [400, 401, 403],
    },
    auth,
    async ({ query, caller }) => {
      const list = await listJobs(deps.store, caller, { type: query.type, status: query.status, limit: query.limit, before: query.cursor });
      return { ...list, jobs: list.jobs.map(toJobView) };
    },
  );

  const jobIntentions = [
    { name: 'retry_job', act: retryJob, summary: 'Put a failed or cancelled job back in the queue (attempts reset)', description: ADMIN },
    {
      name: 'cancel_job',
      act: cancelJob,
      summary: 'Cancel a queued job, or abort a running one',
      description: `${ADMIN} A running job answers status running with cancel_requested_at set; its row turns cancelled once it has stopped.`,
    },
  ];
  for (const { name, act, summary, description } of jobIntentions) {
    registry.route(
      app,
      {
        method: 'post',
        path: `/intentions/${name}`,
        summary,
        description,
        tags: TAGS,
        auth: 'jwt',
        body: z.strictObject({ job_id: JobId }),
        response: { status: 200, schema: z.object({ job: Job }) },
        errors: [400, 401, 403, 404, 409],
      },
      auth,
      async ({ body, caller }) => ({ job: toJobView(await act(deps.store, caller, body.job_id)) }),
    );
  }

  registry.route(
    app,
    {
      method: 'get',
      path: '/admin/resources',
      summary: 'Combined resource status: running jobs and weights, queue depth, rules, live rooms, disk, workers',
      description: ADMIN,
      tags: TAGS,
      auth: 'jwt',
      response: { status: 200, schema: Resources },
      errors: [401, 403],
    },
    auth,
    async ({ caller }) => {
      const [status, pruning] = await Promise.all([resourceStatus(deps.store, caller, deps.liveRooms), latestPruneRun(deps.media, caller)]);
      return { ...resourcesView(status), pruning };
    },
  );

  registry.route(
    app,
    {
      method: 'get',
      path: '/admin/resources/disk',
      summary: 'Disk status: the latest measurement and the history, newest first',
      description: ADMIN,
      tags: TAGS,
      auth: 'jwt',
      query: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }),
      response: { status: 200, schema: z.object({ current: DiskMeasurement.nullable(), history: z.array(DiskMeasurement) }) },
      errors: [400, 401, 403],
    },
    auth,
    async ({ query, caller }) => {
      const disk = await diskStatus(deps.store, caller, query.limit);
      return { current: disk.current && diskView(disk.current), history: disk.history.map(diskView) };
    },
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/admin/resources/update_rule',
      summary: 'Change (or add) a job priority rule; running workers use it without restart',
      description: ADMIN,
      tags: TAGS,
      auth: 'jwt',
      body: UpdateRuleBody,
      response: { status: 200, schema: z.object({ rule: Rule }) },
      errors: [400, 401, 403],
    },
    auth,
    async ({ body, caller }) => {
      const rule = await updateRule(deps.store, caller, ruleChangeOf(body));
      return { rule: ruleView(rule) };
    },
  );
}
