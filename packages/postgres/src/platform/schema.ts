import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { AccessLevel } from '@inntak/access';
import type { JsonObject, Visibility } from '@inntak/graph';
import type { DiskLevel, JobStatus } from '@inntak/jobs';

/** Row types of the tables in db/migrations, as kysely sees them. */
export interface NodesTable {
  id: string;
  node_kind: string;
  title: string | null;
  content: string | null;
  visibility: ColumnType<Visibility, Visibility | undefined, Visibility>;
  metadata: ColumnType<JsonObject, JsonObject | string | undefined, JsonObject | string>;
  created_by: string | null;
  created_at: Generated<Date>;
}

export interface EdgesTable {
  id: string;
  source_id: string;
  target_id: string;
  edge_type: string;
  metadata: ColumnType<JsonObject, JsonObject | string | undefined, JsonObject | string>;
  system: Generated<boolean>;
  created_by: string | null;
  created_at: Generated<Date>;
}

export interface NodeAccessTable {
  subject_id: string;
  object_id: string;
  access: AccessLevel;
  via_edge: string | null;
}

export interface AuthIdentitiesTable {
  issuer: Generated<string>;
  subject: string;
  node_id: string;
  created_at: Generated<Date>;
}

export interface SystemAdminsTable {
  node_id: string;
  created_at: Generated<Date>;
}

export interface JobPriorityRulesTable {
  job_type: string;
  base_priority: number;
  cpu_weight: number;
  max_concurrent: number;
  livekit_priority_adj: number;
  block_during_livekit: boolean;
  timeout_seconds: number;
  updated_at: Generated<Date>;
}

export interface JobQueueTable {
  /** bigint: pg returns it as a string; ids stay far below 2^53. */
  id: ColumnType<string, never, never>;
  job_type: string;
  payload: ColumnType<JsonObject, JsonObject | string | undefined, JsonObject | string>;
  status: Generated<JobStatus>;
  priority: Generated<number>;
  attempts: Generated<number>;
  max_attempts: Generated<number>;
  last_error: string | null;
  worker_job_id: string | null;
  worker_id: string | null;
  worker_process: string | null;
  cpu_weight: Generated<number>;
  cancel_requested_at: Date | null;
  run_at: Generated<Date>;
  queued_at: Generated<Date>;
  started_at: Date | null;
  finished_at: Date | null;
  updated_at: Generated<Date>;
}

export interface JobWorkersTable {
  worker_id: string;
  process_id: string;
  hostname: string;
  pid: number;
  started_at: Generated<Date>;
  last_seen_at: Generated<Date>;
}

export interface LiveRoomsTable {
  room_id: string;
  started_at: Generated<Date>;
  ended_at: Date | null;
}

export interface DiskStatusLogTable {
  id: ColumnType<string, never, never>;
  measured_at: Generated<Date>;
  path: string;
  total_bytes: ColumnType<string, number, number>;
  free_bytes: ColumnType<string, number, number>;
  used_percent: ColumnType<string, number, number>;
  level: DiskLevel;
}

export interface ResourceUsageLogTable {
  id: ColumnType<string, never, never>;
  measured_at: Generated<Date>;
  worker_process: string;
  load_average_1m: ColumnType<string, number, number>;
  cpu_count: number;
  memory_total_bytes: ColumnType<string, number, number>;
  memory_free_bytes: ColumnType<string, number, number>;
  process_rss_bytes: ColumnType<string, number, number>;
  running_jobs: number;
  running_weight: number;
}

export interface RealtimeOverflowTable {
  id: Generated<string>;
  payload: JsonObject;
  created_at: Generated<Date>;
}

/** One search document per node, kept by triggers (db/migrations/005.do.query.sql). */
export interface NodeSearchTable {
  node_id: string;
  document: string;
  /** The title alone, for callers who see a node only as a summary (007). */
  title_document: string;
  /** The node's visibility and creator, copied for the search's read filter (025). */
  visibility: Visibility;
  created_by: string | null;
  /** One lexeme per subject with an access row on the node (025, inntak_reader_lexeme). */
  readers: Generated<string>;
}

/** Pruning runs (db/migrations/013.do.media.sql). */
export interface PruneRunsTable {
  id: ColumnType<string, never, never>;
  started_at: ColumnType<Date, Date | undefined, never>;
  finished_at: Generated<Date>;
  mode: 'run' | 'dry_run';
  trigger: string;
  disk_percent: ColumnType<string, number, number>;
  deleted: ColumnType<unknown[], string, string>;
  freed_bytes: ColumnType<string, number, number>;
  swept: ColumnType<unknown[], string, string>;
}

export interface MixerChannelsTable {
  id: string;
  room_id: string;
  node_id: string | null;
  label: string;
  gain_db: Generated<number>;
  muted: Generated<boolean>;
  effects: ColumnType<Record<string, unknown>, string | undefined, string>;
  offset_ms: Generated<number>;
  role: Generated<string>;
  created_by: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface TranscriptionSegmentsTable {
  media_id: string;
  seq: number;
  start_s: number;
  end_s: number;
  text: string;
}

export interface Database {
  nodes: NodesTable;
  edges: EdgesTable;
  node_access: NodeAccessTable;
  auth_identities: AuthIdentitiesTable;
  system_admins: SystemAdminsTable;
  job_priority_rules: JobPriorityRulesTable;
  job_queue: JobQueueTable;
  job_workers: JobWorkersTable;
  live_rooms: LiveRoomsTable;
  disk_status_log: DiskStatusLogTable;
  resource_usage_log: ResourceUsageLogTable;
  realtime_overflow: RealtimeOverflowTable;
  node_search: NodeSearchTable;
  prune_runs: PruneRunsTable;
  mixer_channels: MixerChannelsTable;
  transcription_segments: TranscriptionSegmentsTable;
  orchestration_log: OrchestrationLogTable;
  orchestration_runs: OrchestrationRunsTable;
  orchestration_budgets: OrchestrationBudgetsTable;
  orchestration_subscriptions: OrchestrationSubscriptionsTable;
  orchestration_schedules: OrchestrationSchedulesTable;
  orchestration_secrets: OrchestrationSecretsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_delivery_ids: WebhookDeliveryIdsTable;
  webhook_secrets: WebhookSecretsTable;
  webhook_refusals: WebhookRefusalsTable;
  webhook_previous_tokens: WebhookPreviousTokensTable;
  webhook_refused_requests: WebhookRefusedRequestsTable;
  studio_sessions: StudioSessionsTable;
  studio_logins: StudioLoginsTable;
}

/** The console's sessions (migration 022): the SHA-256 of the cookie's token, never the token. */
export interface StudioSessionsTable {
  token_hash: Buffer;
  issuer: string;
  subject: string;
  csrf_token: string;
  created_at: Generated<Date>;
  expires_at: Date;
}

/** Console logins under way (migration 022): PKCE verifier and nonce by the hash of the state. */
export interface StudioLoginsTable {
  state_hash: Buffer;
  code_verifier: string;
  nonce: string;
  created_at: Generated<Date>;
  expires_at: Date;
}

export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  received_at: ColumnType<Date, Date | string | undefined, never>;
  status: number;
  error: string | null;
  node_id: string | null;
  edge_id: string | null;
  delivery_id: string | null;
  event: string | null;
  duplicate: Generated<boolean>;
  bytes: ColumnType<string, number | undefined, never>;
  duration_ms: Generated<number>;
  previous_token: Generated<boolean>;
  /** The request's headers, secrets and signatures masked (migration 036). */
  headers: ColumnType<Record<string, string>, string | undefined, string>;
  /** The log row this delivery replays (a replay from the console, REST or CLI). */
  replay_of: string | null;
}

/** A webhook's previous tokens, by hash, with their grace period and hits (migration 035). */
export interface WebhookPreviousTokensTable {
  token_hash: string;
  webhook_id: string;
  rotated_at: Generated<Date>;
  grace_until: Date;
  ended_early: Generated<boolean>;
  hits: ColumnType<string, never, string>;
  last_hit_at: Date | null;
}

/** Refused requests kept whole: the first 20 of a minute per webhook (migration 036). */
export interface WebhookRefusedRequestsTable {
  id: string;
  webhook_id: string;
  received_at: Date;
  status: number;
  error: string;
  delivery_id: string | null;
  event: string | null;
  bytes: ColumnType<string, number | undefined, number>;
  duration_ms: Generated<number>;
  headers: ColumnType<Record<string, string>, string | undefined, string>;
  body: string | null;
  body_truncated: Generated<boolean>;
}

/** Refused requests, counted per webhook, minute, status and reason (migration 018). */
export interface WebhookRefusalsTable {
  webhook_id: string;
  minute: Date;
  status: number;
  reason: string;
  id: string;
  first_received_at: Date;
  last_received_at: Date;
  count: Generated<number>;
  error: string;
  delivery_id: string | null;
  event: string | null;
  bytes: ColumnType<string, number | undefined, number>;
  duration_ms: Generated<number>;
  previous_token: Generated<boolean>;
  /** How many of the requests counted were kept whole in webhook_refused_requests (migration 036). */
  kept: Generated<number>;
}

export interface WebhookDeliveryIdsTable {
  webhook_id: string;
  delivery_id: string;
  node_id: string;
  edge_id: string;
  claimed_at: Generated<Date>;
}

export interface WebhookSecretsTable {
  webhook_id: string;
  scheme: string;
  secret: string;
  updated_at: Generated<Date>;
}

export interface OrchestrationLogTable {
  id: Generated<string>;
  orchestration_id: string;
  job_id: string | null;
  step: number | null;
  action: string | null;
  fallback: 'step' | 'global' | null;
  status: string;
  output: ColumnType<JsonObject | null, string | null | undefined, string | null>;
  error: string | null;
  duration_ms: number;
  event: ColumnType<JsonObject, string, string>;
  at: Generated<Date>;
}

export interface OrchestrationRunsTable {
  orchestration_id: string;
  event_type: string;
  subject_id: string;
  depth: number;
  job_id: string | null;
  created_at: Generated<Date>;
  /** The cascade's root event (017); null for runs queued before it. */
  root_id: string | null;
  /** 023: a run's own id, status, times, event and what a re-run needs. */
  id: Generated<string>;
  status: ColumnType<'queued' | 'running' | 'completed' | 'filtered' | 'stopped' | 'failed' | 'skipped', string | undefined, string>;
  started_at: Date | null;
  finished_at: Date | null;
  event: ColumnType<JsonObject | null, string | null | undefined, string | null>;
  failed_step: number | null;
  outputs: ColumnType<JsonObject, string | undefined, string>;
  rerun_of: string | null;
  from_step: Generated<number>;
  /** 028: the person the run acted as, set when it starts (a re-run must act as the same one). */
  runs_as: string | null;
  /** 029: the person who asked for a manual run or a re-run (their cap, ORCHESTRATION_RUNS_PER_PERSON); null otherwise. */
  requested_by: string | null;
  /** 033: times the run's job died with its worker and the run was taken up again (issue 38). */
  lost_workers: Generated<number>;
  /** 039: each retried attempt that failed, oldest first (issue 39): {step, attempt, error, at, job_id}. */
  attempts: ColumnType<JsonObject[], string | undefined, string>;
}

/** When each scheduled orchestration is next due (023). */
export interface OrchestrationSchedulesTable {
  orchestration_id: string;
  cron: string;
  next_at: ColumnType<Date, Date | string, Date | string>;
}

/** Secrets for http_post headers (023): written by set_orchestration_secret, read only by the worker. */
export interface OrchestrationSecretsTable {
  orchestration_id: string;
  name: string;
  value: string;
  set_at: Generated<Date>;
}

/** Orchestrations indexed for matching (017), maintained by triggers: read-only to the code. */
export interface OrchestrationSubscriptionsTable {
  orchestration_id: string;
  event: string;
  scope: string;
  selector: string;
  creator: string;
  needs_source: boolean;
  probe: string;
  any_probe: string | null;
}

/** What one root event's orchestration cascade has spent of its budget (017). */
export interface OrchestrationBudgetsTable {
  root_id: string;
  spent: number;
  created_at: Generated<Date>;
}

export type NodeRow = Selectable<NodesTable>;
export type EdgeRow = Selectable<EdgesTable>;
export type NewNodeRow = Insertable<NodesTable>;
export type JobQueueRow = Selectable<JobQueueTable>;
export type JobPriorityRuleRow = Selectable<JobPriorityRulesTable>;
