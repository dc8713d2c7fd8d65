-- The public schema after every migration in db/migrations (npm run db:schema writes it).

-- types
create type access_level as enum ('reader', 'member', 'admin', 'owner');
create type visibility as enum ('hidden', 'discoverable', 'readable', 'open');

-- tables
create table ab_decisions (
  id bigint not null generated always as identity,
  publication_id uuid not null,
  article_id uuid not null,
  variant_type text not null,
  round integer not null,
  kind text not null,
  variant_edge_id uuid,
  decided_by uuid,
  detail jsonb not null default '{}'::jsonb,
  decided_at timestamp with time zone not null default now()
);
create table ab_events (
  id bigint not null generated always as identity,
  variant_edge_id uuid not null,
  hour_of_week smallint not null,
  impressions integer not null default 0,
  clicks integer not null default 0,
  recorded_at timestamp with time zone not null default now(),
  uncounted_bot integer not null default 0,
  uncounted_prefetch integer not null default 0,
  uncounted_address_cap integer not null default 0,
  uncounted_repeat integer not null default 0
);
create table ab_impressions (
  window_index integer not null,
  client text not null,
  network text not null,
  publication_id uuid not null,
  article_id uuid not null,
  id text not null,
  variant_edge_id uuid not null,
  clicked boolean not null default false,
  created_at timestamp with time zone not null default now()
);
create table ab_tests (
  publication_id uuid not null,
  article_id uuid not null,
  variant_type text not null,
  round integer not null default 1,
  round_started_at timestamp with time zone not null default now(),
  last_evaluated_at timestamp with time zone,
  last_reason text
);
create table auth_identities (
  issuer text not null default ''::text,
  subject text not null,
  node_id uuid not null,
  created_at timestamp with time zone not null default now()
);
create table disk_status_log (
  id bigint not null generated always as identity,
  measured_at timestamp with time zone not null default now(),
  path text not null,
  total_bytes bigint not null,
  free_bytes bigint not null,
  used_percent numeric(5,2) not null,
  level text not null
);
create table edges (
  id uuid not null,
  source_id uuid not null,
  target_id uuid not null,
  edge_type text not null,
  metadata jsonb not null default '{}'::jsonb,
  system boolean not null default false,
  created_by uuid,
  created_at timestamp with time zone not null default now()
);
create table job_priority_rules (
  job_type text not null,
  base_priority integer not null default 0,
  cpu_weight integer not null default 1,
  max_concurrent integer not null default 3,
  livekit_priority_adj integer not null default 0,
  block_during_livekit boolean not null default false,
  timeout_seconds integer not null default 600,
  updated_at timestamp with time zone not null default now()
);
create table job_queue (
  id bigint not null generated always as identity,
  job_type text not null,
  payload jsonb not null default '{}'::jsonb,
  status text not null default 'queued'::text,
  priority integer not null default 0,
  attempts integer not null default 0,
  max_attempts integer not null default 25,
  last_error text,
  worker_job_id bigint,
  worker_id text,
  worker_process text,
  cpu_weight integer not null default 0,
  cancel_requested_at timestamp with time zone,
  run_at timestamp with time zone not null default now(),
  queued_at timestamp with time zone not null default now(),
  started_at timestamp with time zone,
  finished_at timestamp with time zone,
  updated_at timestamp with time zone not null default now()
);
create table job_workers (
  worker_id text not null,
  process_id text not null,
  hostname text not null,
  pid integer not null,
  started_at timestamp with time zone not null default now(),
  last_seen_at timestamp with time zone not null default now()
);
create table live_rooms (
  room_id text not null,
  started_at timestamp with time zone not null default now(),
  ended_at timestamp with time zone
);
create table mixer_channels (
  id uuid not null,
  room_id uuid not null,
  node_id uuid,
  label text not null,
  gain_db double precision not null default 0,
  muted boolean not null default false,
  effects jsonb not null default '{}'::jsonb,
  role text not null default 'guest'::text,
  created_by uuid,
  created_at timestamp with time zone not null default now(),
  updated_at timestamp with time zone not null default now(),
  offset_ms integer not null default 0
);
create table node_access (
  subject_id uuid not null,
  object_id uuid not null,
  access access_level not null,
  via_edge uuid
);
create table node_search (
  node_id uuid not null,
  document tsvector not null,
  title_document tsvector not null,
  visibility visibility not null,
  created_by uuid,
  readers tsvector not null default ''::tsvector
);
create table nodes (
  id uuid not null,
  node_kind text not null,
  title text,
  content text,
  visibility visibility not null default 'hidden'::visibility,
  metadata jsonb not null default '{}'::jsonb,
  created_by uuid,
  created_at timestamp with time zone not null default now()
);
create table orchestration_budgets (
  root_id uuid not null,
  spent integer not null,
  created_at timestamp with time zone not null default now()
);
create table orchestration_log (
  id bigint not null generated always as identity,
  orchestration_id uuid not null,
  job_id bigint,
  step integer,
  action text,
  fallback text,
  status text not null,
  output jsonb,
  error text,
  duration_ms integer not null default 0,
  event jsonb not null,
  at timestamp with time zone not null default now()
);
create table orchestration_runs (
  orchestration_id uuid not null,
  event_type text not null,
  subject_id uuid not null,
  depth integer not null,
  job_id bigint,
  created_at timestamp with time zone not null default now(),
  root_id uuid,
  id uuid not null default gen_random_uuid(),
  status text not null default 'queued'::text,
  started_at timestamp with time zone,
  finished_at timestamp with time zone,
  event jsonb,
  failed_step integer,
  outputs jsonb not null default '{}'::jsonb,
  rerun_of uuid,
  from_step integer not null default 1,
  runs_as uuid,
  requested_by uuid,
  lost_workers integer not null default 0,
  attempts jsonb not null default '[]'::jsonb
);
create table orchestration_schedules (
  orchestration_id uuid not null,
  cron text not null,
  next_at timestamp with time zone not null
);
create table orchestration_secrets (
  orchestration_id uuid not null,
  name text not null,
  value text not null,
  set_at timestamp with time zone not null default now()
);
create table orchestration_subscriptions (
  orchestration_id uuid not null,
  event text not null,
  scope uuid not null,
  selector text not null,
  creator uuid not null,
  needs_source boolean not null,
  probe text not null,
  any_probe text
);
create table prune_runs (
  id bigint not null generated always as identity,
  started_at timestamp with time zone not null default now(),
  finished_at timestamp with time zone not null default now(),
  mode text not null,
  trigger text not null,
  disk_percent numeric(5,2) not null,
  deleted jsonb not null default '[]'::jsonb,
  freed_bytes bigint not null default 0,
  swept jsonb not null default '[]'::jsonb
);
create table publication_domains (
  domain text not null,
  publication_id uuid not null,
  created_at timestamp with time zone not null default now()
);
create table realtime_overflow (
  id bigint not null generated always as identity,
  payload jsonb not null,
  created_at timestamp with time zone not null default now()
);
create table resource_usage_log (
  id bigint not null generated always as identity,
  measured_at timestamp with time zone not null default now(),
  worker_process text not null,
  load_average_1m numeric(8,2) not null,
  cpu_count integer not null,
  memory_total_bytes bigint not null,
  memory_free_bytes bigint not null,
  process_rss_bytes bigint not null,
  running_jobs integer not null,
  running_weight integer not null
);
create table schema_version (
  version bigint not null,
  name text,
  md5 text,
  run_at timestamp with time zone
);
create table server_secrets (
  name text not null,
  secret bytea not null,
  created_at timestamp with time zone not null default now(),
  previous_secret bytea,
  rotated_at timestamp with time zone
);
create table studio_logins (
  state_hash bytea not null,
  code_verifier text not null,
  nonce text not null,
  created_at timestamp with time zone not null default now(),
  expires_at timestamp with time zone not null
);
create table studio_sessions (
  token_hash bytea not null,
  issuer text not null,
  subject text not null,
  csrf_token text not null,
  created_at timestamp with time zone not null default now(),
  expires_at timestamp with time zone not null
);
create table system_admins (
  node_id uuid not null,
  created_at timestamp with time zone not null default now()
);
create table transcription_segments (
  media_id uuid not null,
  seq integer not null,
  start_s double precision not null,
  end_s double precision not null,
  text text not null
);
create table webhook_deliveries (
  id uuid not null,
  webhook_id uuid not null,
  received_at timestamp with time zone not null default now(),
  status smallint not null,
  error text,
  node_id uuid,
  edge_id uuid,
  delivery_id text,
  event text,
  duplicate boolean not null default false,
  bytes bigint not null default 0,
  duration_ms integer not null default 0,
  previous_token boolean not null default false,
  headers jsonb not null default '{}'::jsonb,
  replay_of uuid
);
create table webhook_delivery_ids (
  webhook_id uuid not null,
  delivery_id text not null,
  node_id uuid not null,
  edge_id uuid not null,
  claimed_at timestamp with time zone not null default now()
);
create table webhook_previous_tokens (
  token_hash text not null,
  webhook_id uuid not null,
  rotated_at timestamp with time zone not null default now(),
  grace_until timestamp with time zone not null,
  ended_early boolean not null default false,
  hits bigint not null default 0,
  last_hit_at timestamp with time zone
);
create table webhook_refusals (
  webhook_id uuid not null,
  minute timestamp with time zone not null,
  status smallint not null,
  reason text not null,
  id uuid not null,
  first_received_at timestamp with time zone not null,
  last_received_at timestamp with time zone not null,
  count integer not null default 1,
  error text not null,
  delivery_id text,
  event text,
  bytes bigint not null default 0,
  duration_ms integer not null default 0,
  previous_token boolean not null default false,
  kept integer not null default 0
);
create table webhook_refused_requests (
  id uuid not null,
  webhook_id uuid not null,
  received_at timestamp with time zone not null,
  status smallint not null,
  error text not null,
  delivery_id text,
  event text,
  bytes bigint not null default 0,
  duration_ms integer not null default 0,
  headers jsonb not null default '{}'::jsonb,
  body text,
  body_truncated boolean not null default false
);
create table webhook_secrets (
  webhook_id uuid not null,
  scheme text not null,
  secret text not null,
  updated_at timestamp with time zone not null default now()
);

-- constraints
alter table ab_decisions add constraint ab_decisions_article_id_fkey FOREIGN KEY (article_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table ab_decisions add constraint ab_decisions_decided_by_fkey FOREIGN KEY (decided_by) REFERENCES nodes(id) ON DELETE SET NULL;
alter table ab_decisions add constraint ab_decisions_kind_check CHECK ((kind = ANY (ARRAY['round_started'::text, 'winner'::text, 'override'::text, 'sample_ratio_mismatch'::text])));
alter table ab_decisions add constraint ab_decisions_pkey PRIMARY KEY (id);
alter table ab_decisions add constraint ab_decisions_publication_id_fkey FOREIGN KEY (publication_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table ab_decisions add constraint ab_decisions_variant_edge_id_fkey FOREIGN KEY (variant_edge_id) REFERENCES edges(id) ON DELETE SET NULL;
alter table ab_events add constraint ab_events_clicks_check CHECK ((clicks >= 0));
alter table ab_events add constraint ab_events_hour_of_week_check CHECK (((hour_of_week >= 0) AND (hour_of_week <= 167)));
alter table ab_events add constraint ab_events_impressions_check CHECK ((impressions >= 0));
alter table ab_events add constraint ab_events_pkey PRIMARY KEY (id);
alter table ab_events add constraint ab_events_uncounted_address_cap_check CHECK ((uncounted_address_cap >= 0));
alter table ab_events add constraint ab_events_uncounted_bot_check CHECK ((uncounted_bot >= 0));
alter table ab_events add constraint ab_events_uncounted_prefetch_check CHECK ((uncounted_prefetch >= 0));
alter table ab_events add constraint ab_events_uncounted_repeat_check CHECK ((uncounted_repeat >= 0));
alter table ab_events add constraint ab_events_variant_edge_id_fkey FOREIGN KEY (variant_edge_id) REFERENCES edges(id) ON DELETE CASCADE;
alter table ab_impressions add constraint ab_impressions_pkey PRIMARY KEY (window_index, client, publication_id, article_id);
alter table ab_tests add constraint ab_tests_article_id_fkey FOREIGN KEY (article_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table ab_tests add constraint ab_tests_pkey PRIMARY KEY (publication_id, article_id, variant_type);
alter table ab_tests add constraint ab_tests_publication_id_fkey FOREIGN KEY (publication_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table ab_tests add constraint ab_tests_round_check CHECK ((round >= 1));
alter table auth_identities add constraint auth_identities_node_id_fkey FOREIGN KEY (node_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table auth_identities add constraint auth_identities_pkey PRIMARY KEY (issuer, subject);
alter table disk_status_log add constraint disk_status_log_level_check CHECK ((level = ANY (ARRAY['ok'::text, 'warning'::text, 'critical'::text, 'emergency'::text])));
alter table disk_status_log add constraint disk_status_log_pkey PRIMARY KEY (id);
alter table edges add constraint edges_created_by_fkey FOREIGN KEY (created_by) REFERENCES nodes(id) ON DELETE SET NULL;
alter table edges add constraint edges_orchestration_match TRIGGER DEFERRABLE INITIALLY DEFERRED;
alter table edges add constraint edges_pkey PRIMARY KEY (id);
alter table edges add constraint edges_source_id_fkey FOREIGN KEY (source_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table edges add constraint edges_target_id_fkey FOREIGN KEY (target_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table job_priority_rules add constraint job_priority_rules_cpu_weight_check CHECK ((cpu_weight >= 0));
alter table job_priority_rules add constraint job_priority_rules_max_concurrent_check CHECK ((max_concurrent >= 0));
alter table job_priority_rules add constraint job_priority_rules_pkey PRIMARY KEY (job_type);
alter table job_priority_rules add constraint job_priority_rules_timeout_seconds_check CHECK ((timeout_seconds > 0));
alter table job_queue add constraint job_queue_pkey PRIMARY KEY (id);
alter table job_queue add constraint job_queue_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'running'::text, 'completed'::text, 'failed'::text, 'cancelled'::text])));
alter table job_workers add constraint job_workers_pkey PRIMARY KEY (worker_id);
alter table live_rooms add constraint live_rooms_pkey PRIMARY KEY (room_id);
alter table mixer_channels add constraint mixer_channels_created_by_fkey FOREIGN KEY (created_by) REFERENCES nodes(id) ON DELETE SET NULL;
alter table mixer_channels add constraint mixer_channels_effects_check CHECK ((jsonb_typeof(effects) = 'object'::text));
alter table mixer_channels add constraint mixer_channels_gain_db_check CHECK (((gain_db >= ('-60'::integer)::double precision) AND (gain_db <= (12)::double precision)));
alter table mixer_channels add constraint mixer_channels_label_check CHECK (((char_length(label) >= 1) AND (char_length(label) <= 200)));
alter table mixer_channels add constraint mixer_channels_node_id_fkey FOREIGN KEY (node_id) REFERENCES nodes(id) ON DELETE SET NULL;
alter table mixer_channels add constraint mixer_channels_offset_ms_check CHECK (((offset_ms >= 0) AND (offset_ms <= 3600000)));
alter table mixer_channels add constraint mixer_channels_pkey PRIMARY KEY (id);
alter table mixer_channels add constraint mixer_channels_room_id_fkey FOREIGN KEY (room_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table node_access add constraint node_access_object_id_fkey FOREIGN KEY (object_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table node_access add constraint node_access_pkey PRIMARY KEY (subject_id, object_id);
alter table node_access add constraint node_access_subject_id_fkey FOREIGN KEY (subject_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table node_access add constraint node_access_via_edge_fkey FOREIGN KEY (via_edge) REFERENCES edges(id) ON DELETE CASCADE;
alter table node_search add constraint node_search_node_id_fkey FOREIGN KEY (node_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table node_search add constraint node_search_pkey PRIMARY KEY (node_id);
alter table nodes add constraint nodes_created_by_fkey FOREIGN KEY (created_by) REFERENCES nodes(id) ON DELETE SET NULL;
alter table nodes add constraint nodes_orchestration_match TRIGGER DEFERRABLE INITIALLY DEFERRED;
alter table nodes add constraint nodes_orchestration_match_update TRIGGER DEFERRABLE INITIALLY DEFERRED;
alter table nodes add constraint nodes_pkey PRIMARY KEY (id);
alter table nodes add constraint nodes_search_insert TRIGGER DEFERRABLE INITIALLY DEFERRED;
alter table orchestration_budgets add constraint orchestration_budgets_pkey PRIMARY KEY (root_id);
alter table orchestration_log add constraint orchestration_log_fallback_check CHECK ((fallback = ANY (ARRAY['step'::text, 'global'::text])));
alter table orchestration_log add constraint orchestration_log_job_id_fkey FOREIGN KEY (job_id) REFERENCES job_queue(id) ON DELETE SET NULL;
alter table orchestration_log add constraint orchestration_log_orchestration_id_fkey FOREIGN KEY (orchestration_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table orchestration_log add constraint orchestration_log_pkey PRIMARY KEY (id);
alter table orchestration_log add constraint orchestration_log_status_check CHECK ((status = ANY (ARRAY['ok'::text, 'failed'::text, 'fallback_ok'::text, 'fallback_failed'::text, 'skipped'::text])));
alter table orchestration_runs add constraint orchestration_runs_attempts_check CHECK ((jsonb_typeof(attempts) = 'array'::text));
alter table orchestration_runs add constraint orchestration_runs_job_id_fkey FOREIGN KEY (job_id) REFERENCES job_queue(id) ON DELETE SET NULL;
alter table orchestration_runs add constraint orchestration_runs_orchestration_id_fkey FOREIGN KEY (orchestration_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table orchestration_runs add constraint orchestration_runs_pkey PRIMARY KEY (id);
alter table orchestration_runs add constraint orchestration_runs_requested_by_fkey FOREIGN KEY (requested_by) REFERENCES nodes(id) ON DELETE SET NULL;
alter table orchestration_runs add constraint orchestration_runs_rerun_of_fkey FOREIGN KEY (rerun_of) REFERENCES orchestration_runs(id) ON DELETE SET NULL;
alter table orchestration_runs add constraint orchestration_runs_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'running'::text, 'completed'::text, 'filtered'::text, 'stopped'::text, 'failed'::text, 'skipped'::text])));
alter table orchestration_schedules add constraint orchestration_schedules_orchestration_id_fkey FOREIGN KEY (orchestration_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table orchestration_schedules add constraint orchestration_schedules_pkey PRIMARY KEY (orchestration_id);
alter table orchestration_secrets add constraint orchestration_secrets_name_check CHECK ((name ~ '^[A-Za-z_][A-Za-z0-9_]{0,63}$'::text));
alter table orchestration_secrets add constraint orchestration_secrets_orchestration_id_fkey FOREIGN KEY (orchestration_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table orchestration_secrets add constraint orchestration_secrets_pkey PRIMARY KEY (orchestration_id, name);
alter table orchestration_subscriptions add constraint orchestration_subscriptions_orchestration_id_fkey FOREIGN KEY (orchestration_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table orchestration_subscriptions add constraint orchestration_subscriptions_pkey PRIMARY KEY (orchestration_id, scope);
alter table prune_runs add constraint prune_runs_mode_check CHECK ((mode = ANY (ARRAY['run'::text, 'dry_run'::text])));
alter table prune_runs add constraint prune_runs_pkey PRIMARY KEY (id);
alter table publication_domains add constraint publication_domains_pkey PRIMARY KEY (domain);
alter table publication_domains add constraint publication_domains_publication_id_fkey FOREIGN KEY (publication_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table realtime_overflow add constraint realtime_overflow_pkey PRIMARY KEY (id);
alter table resource_usage_log add constraint resource_usage_log_pkey PRIMARY KEY (id);
alter table schema_version add constraint schema_version_pkey PRIMARY KEY (version);
alter table server_secrets add constraint server_secrets_pkey PRIMARY KEY (name);
alter table studio_logins add constraint studio_logins_pkey PRIMARY KEY (state_hash);
alter table studio_sessions add constraint studio_sessions_pkey PRIMARY KEY (token_hash);
alter table system_admins add constraint system_admins_node_id_fkey FOREIGN KEY (node_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table system_admins add constraint system_admins_pkey PRIMARY KEY (node_id);
alter table transcription_segments add constraint transcription_segments_check CHECK ((end_s >= start_s));
alter table transcription_segments add constraint transcription_segments_media_id_fkey FOREIGN KEY (media_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table transcription_segments add constraint transcription_segments_pkey PRIMARY KEY (media_id, seq);
alter table transcription_segments add constraint transcription_segments_seq_check CHECK ((seq >= 0));
alter table transcription_segments add constraint transcription_segments_start_s_check CHECK ((start_s >= (0)::double precision));
alter table webhook_deliveries add constraint webhook_deliveries_pkey PRIMARY KEY (id);
alter table webhook_delivery_ids add constraint webhook_delivery_ids_pkey PRIMARY KEY (webhook_id, delivery_id);
alter table webhook_previous_tokens add constraint webhook_previous_tokens_pkey PRIMARY KEY (token_hash);
alter table webhook_previous_tokens add constraint webhook_previous_tokens_token_hash_check CHECK ((token_hash ~ '^[0-9a-f]{64}$'::text));
alter table webhook_previous_tokens add constraint webhook_previous_tokens_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES nodes(id) ON DELETE CASCADE;
alter table webhook_refusals add constraint webhook_refusals_pkey PRIMARY KEY (webhook_id, minute, status, reason);
alter table webhook_refused_requests add constraint webhook_refused_requests_pkey PRIMARY KEY (id);
alter table webhook_secrets add constraint webhook_secrets_pkey PRIMARY KEY (webhook_id);
alter table webhook_secrets add constraint webhook_secrets_scheme_check CHECK ((scheme = ANY (ARRAY['github'::text, 'gitlab'::text, 'gitea'::text, 'slack'::text, 'standard-webhooks'::text])));
alter table webhook_secrets add constraint webhook_secrets_secret_check CHECK ((secret <> ''::text));
alter table webhook_secrets add constraint webhook_secrets_webhook_id_fkey FOREIGN KEY (webhook_id) REFERENCES nodes(id) ON DELETE CASCADE;

-- indexes
CREATE INDEX ab_decisions_article_idx ON public.ab_decisions USING btree (article_id);
CREATE INDEX ab_decisions_decided_by_idx ON public.ab_decisions USING btree (decided_by);
CREATE UNIQUE INDEX ab_decisions_pkey ON public.ab_decisions USING btree (id);
CREATE INDEX ab_decisions_test_idx ON public.ab_decisions USING btree (publication_id, article_id, variant_type, id DESC);
CREATE INDEX ab_decisions_variant_idx ON public.ab_decisions USING btree (variant_edge_id);
CREATE UNIQUE INDEX ab_events_pkey ON public.ab_events USING btree (id);
CREATE INDEX ab_events_variant_idx ON public.ab_events USING btree (variant_edge_id) INCLUDE (impressions, clicks);
CREATE INDEX ab_events_variant_time_idx ON public.ab_events USING btree (variant_edge_id, recorded_at) INCLUDE (impressions, clicks);
CREATE UNIQUE INDEX ab_impressions_id_idx ON public.ab_impressions USING btree (id);
CREATE INDEX ab_impressions_network_idx ON public.ab_impressions USING btree (window_index, network, client);
CREATE UNIQUE INDEX ab_impressions_pkey ON public.ab_impressions USING btree (window_index, client, publication_id, article_id);
CREATE INDEX ab_tests_article_idx ON public.ab_tests USING btree (article_id);
CREATE UNIQUE INDEX ab_tests_pkey ON public.ab_tests USING btree (publication_id, article_id, variant_type);
CREATE INDEX auth_identities_node_idx ON public.auth_identities USING btree (node_id);
CREATE UNIQUE INDEX auth_identities_pkey ON public.auth_identities USING btree (issuer, subject);
CREATE UNIQUE INDEX disk_status_log_pkey ON public.disk_status_log USING btree (id);
CREATE INDEX edges_created_by_idx ON public.edges USING btree (created_by) WHERE (created_by IS NOT NULL);
CREATE UNIQUE INDEX edges_pkey ON public.edges USING btree (id);
CREATE INDEX edges_published_in_cover_idx ON public.edges USING btree (target_id, created_at DESC, id DESC) INCLUDE (source_id) WHERE (edge_type = 'published_in'::text);
CREATE UNIQUE INDEX edges_published_in_once_idx ON public.edges USING btree (source_id, target_id) WHERE (edge_type = 'published_in'::text);
CREATE INDEX edges_source_id_idx ON public.edges USING btree (source_id, id);
CREATE INDEX edges_source_target_idx ON public.edges USING btree (source_id, target_id);
CREATE INDEX edges_source_type_idx ON public.edges USING btree (source_id, edge_type);
CREATE INDEX edges_target_id_idx ON public.edges USING btree (target_id, id);
CREATE INDEX edges_target_type_source_idx ON public.edges USING btree (target_id, edge_type, source_id);
CREATE INDEX edges_variant_testing_idx ON public.edges USING btree (source_id, target_id) WHERE ((edge_type = 'front_page_variant'::text) AND ((metadata ->> 'ab_status'::text) = 'testing'::text));
CREATE UNIQUE INDEX job_priority_rules_pkey ON public.job_priority_rules USING btree (job_type);
CREATE INDEX job_queue_listing_idx ON public.job_queue USING btree (status, job_type, id DESC);
CREATE UNIQUE INDEX job_queue_pkey ON public.job_queue USING btree (id);
CREATE INDEX job_queue_running_idx ON public.job_queue USING btree (job_type) WHERE (status = 'running'::text);
CREATE INDEX job_queue_type_idx ON public.job_queue USING btree (job_type, id DESC);
CREATE UNIQUE INDEX job_queue_worker_job_idx ON public.job_queue USING btree (worker_job_id) WHERE (worker_job_id IS NOT NULL);
CREATE UNIQUE INDEX job_workers_pkey ON public.job_workers USING btree (worker_id);
CREATE INDEX job_workers_process_idx ON public.job_workers USING btree (process_id);
CREATE INDEX live_rooms_active_idx ON public.live_rooms USING btree (room_id) WHERE (ended_at IS NULL);
CREATE UNIQUE INDEX live_rooms_pkey ON public.live_rooms USING btree (room_id);
CREATE INDEX mixer_channels_created_by_idx ON public.mixer_channels USING btree (created_by) WHERE (created_by IS NOT NULL);
CREATE INDEX mixer_channels_node_idx ON public.mixer_channels USING btree (node_id) WHERE (node_id IS NOT NULL);
CREATE UNIQUE INDEX mixer_channels_pkey ON public.mixer_channels USING btree (id);
CREATE INDEX mixer_channels_room_idx ON public.mixer_channels USING btree (room_id, created_at);
CREATE INDEX node_access_object_idx ON public.node_access USING btree (object_id);
CREATE UNIQUE INDEX node_access_pkey ON public.node_access USING btree (subject_id, object_id);
CREATE INDEX node_access_via_edge_idx ON public.node_access USING btree (via_edge);
CREATE INDEX node_search_created_by_idx ON public.node_search USING btree (created_by, node_id);
CREATE INDEX node_search_discoverable_idx ON public.node_search USING btree (node_id) WHERE (visibility = 'discoverable'::visibility);
CREATE INDEX node_search_discoverable_title_idx ON public.node_search USING gin (title_document) WHERE (visibility = 'discoverable'::visibility);
CREATE INDEX node_search_document_idx ON public.node_search USING gin (document);
CREATE UNIQUE INDEX node_search_pkey ON public.node_search USING btree (node_id);
CREATE INDEX node_search_readers_document_idx ON public.node_search USING gin (readers, document) WHERE (visibility = ANY (ARRAY['hidden'::visibility, 'discoverable'::visibility]));
CREATE INDEX node_search_shown_document_idx ON public.node_search USING gin (document) WHERE (visibility = ANY (ARRAY['readable'::visibility, 'open'::visibility]));
CREATE INDEX node_search_shown_idx ON public.node_search USING btree (node_id) WHERE (visibility = ANY (ARRAY['readable'::visibility, 'open'::visibility]));
CREATE INDEX node_search_title_document_idx ON public.node_search USING gin (title_document);
CREATE INDEX nodes_created_at_idx ON public.nodes USING btree (created_at);
CREATE INDEX nodes_created_by_id_idx ON public.nodes USING btree (created_by, id);
CREATE INDEX nodes_kind_id_idx ON public.nodes USING btree (node_kind, id);
CREATE INDEX nodes_not_hidden_id_idx ON public.nodes USING btree (id) WHERE (visibility <> 'hidden'::visibility);
CREATE INDEX nodes_orchestration_creator_idx ON public.nodes USING btree (created_by) WHERE (node_kind = 'orchestration'::text);
CREATE INDEX nodes_orchestration_event_idx ON public.nodes USING btree ((((metadata -> 'trigger'::text) ->> 'event'::text))) WHERE (node_kind = 'orchestration'::text);
CREATE UNIQUE INDEX nodes_pkey ON public.nodes USING btree (id);
CREATE UNIQUE INDEX nodes_publication_slug_idx ON public.nodes USING btree (((metadata #>> '{publication,slug}'::text[]))) WHERE ((node_kind = 'collection'::text) AND (metadata ? 'publication'::text));
CREATE UNIQUE INDEX nodes_tag_name_idx ON public.nodes USING btree (((metadata ->> 'tag'::text))) WHERE (node_kind = 'tag'::text);
CREATE INDEX nodes_visibility_id_idx ON public.nodes USING btree (visibility, id);
CREATE UNIQUE INDEX nodes_webhook_token_idx ON public.nodes USING btree (((metadata ->> 'token'::text))) WHERE (node_kind = 'webhook'::text);
CREATE UNIQUE INDEX orchestration_budgets_pkey ON public.orchestration_budgets USING btree (root_id);
CREATE INDEX orchestration_log_job_idx ON public.orchestration_log USING btree (job_id);
CREATE INDEX orchestration_log_orchestration_idx ON public.orchestration_log USING btree (orchestration_id, id DESC);
CREATE UNIQUE INDEX orchestration_log_pkey ON public.orchestration_log USING btree (id);
CREATE UNIQUE INDEX orchestration_runs_event_idx ON public.orchestration_runs USING btree (orchestration_id, event_type, subject_id) WHERE ((event_type = ANY (ARRAY['node.created'::text, 'edge.created'::text])) AND (rerun_of IS NULL));
CREATE INDEX orchestration_runs_job_idx ON public.orchestration_runs USING btree (job_id);
CREATE INDEX orchestration_runs_list_idx ON public.orchestration_runs USING btree (orchestration_id, created_at DESC, id);
CREATE UNIQUE INDEX orchestration_runs_pkey ON public.orchestration_runs USING btree (id);
CREATE INDEX orchestration_runs_requested_by_idx ON public.orchestration_runs USING btree (requested_by, status) WHERE (requested_by IS NOT NULL);
CREATE INDEX orchestration_runs_rerun_of_idx ON public.orchestration_runs USING btree (rerun_of) WHERE (rerun_of IS NOT NULL);
CREATE INDEX orchestration_schedules_due_idx ON public.orchestration_schedules USING btree (next_at);
CREATE UNIQUE INDEX orchestration_schedules_pkey ON public.orchestration_schedules USING btree (orchestration_id);
CREATE UNIQUE INDEX orchestration_secrets_pkey ON public.orchestration_secrets USING btree (orchestration_id, name);
CREATE INDEX orchestration_subscriptions_any_probe_idx ON public.orchestration_subscriptions USING btree (any_probe) WHERE (any_probe IS NOT NULL);
CREATE UNIQUE INDEX orchestration_subscriptions_pkey ON public.orchestration_subscriptions USING btree (orchestration_id, scope);
CREATE INDEX orchestration_subscriptions_probe_idx ON public.orchestration_subscriptions USING btree (probe);
CREATE UNIQUE INDEX prune_runs_pkey ON public.prune_runs USING btree (id);
CREATE INDEX prune_runs_started_idx ON public.prune_runs USING btree (started_at DESC);
CREATE UNIQUE INDEX publication_domains_pkey ON public.publication_domains USING btree (domain);
CREATE INDEX publication_domains_publication_idx ON public.publication_domains USING btree (publication_id);
CREATE INDEX realtime_overflow_created_idx ON public.realtime_overflow USING btree (created_at);
CREATE UNIQUE INDEX realtime_overflow_pkey ON public.realtime_overflow USING btree (id);
CREATE UNIQUE INDEX resource_usage_log_pkey ON public.resource_usage_log USING btree (id);
CREATE UNIQUE INDEX schema_version_pkey ON public.schema_version USING btree (version);
CREATE UNIQUE INDEX server_secrets_pkey ON public.server_secrets USING btree (name);
CREATE INDEX studio_logins_expires_idx ON public.studio_logins USING btree (expires_at);
CREATE UNIQUE INDEX studio_logins_pkey ON public.studio_logins USING btree (state_hash);
CREATE INDEX studio_sessions_expires_idx ON public.studio_sessions USING btree (expires_at);
CREATE UNIQUE INDEX studio_sessions_pkey ON public.studio_sessions USING btree (token_hash);
CREATE UNIQUE INDEX system_admins_pkey ON public.system_admins USING btree (node_id);
CREATE UNIQUE INDEX transcription_segments_pkey ON public.transcription_segments USING btree (media_id, seq);
CREATE UNIQUE INDEX webhook_deliveries_pkey ON public.webhook_deliveries USING btree (id);
CREATE INDEX webhook_deliveries_webhook_idx ON public.webhook_deliveries USING btree (webhook_id, id DESC);
CREATE UNIQUE INDEX webhook_delivery_ids_pkey ON public.webhook_delivery_ids USING btree (webhook_id, delivery_id);
CREATE UNIQUE INDEX webhook_previous_tokens_pkey ON public.webhook_previous_tokens USING btree (token_hash);
CREATE INDEX webhook_previous_tokens_webhook_idx ON public.webhook_previous_tokens USING btree (webhook_id, rotated_at DESC);
CREATE UNIQUE INDEX webhook_refusals_pkey ON public.webhook_refusals USING btree (webhook_id, minute, status, reason);
CREATE INDEX webhook_refusals_webhook_idx ON public.webhook_refusals USING btree (webhook_id, id DESC);
CREATE UNIQUE INDEX webhook_refused_requests_pkey ON public.webhook_refused_requests USING btree (id);
CREATE INDEX webhook_refused_requests_received_idx ON public.webhook_refused_requests USING btree (received_at);
CREATE INDEX webhook_refused_requests_webhook_idx ON public.webhook_refused_requests USING btree (webhook_id, id DESC);
CREATE UNIQUE INDEX webhook_secrets_pkey ON public.webhook_secrets USING btree (webhook_id);

-- functions
CREATE OR REPLACE FUNCTION public.access_granted_by(edge_type text, metadata jsonb)
 RETURNS access_level
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN CASE edge_type WHEN 'owner'::text THEN 'owner'::access_level WHEN 'member_of'::text THEN CASE (metadata ->> 'access'::text) WHEN 'reader'::text THEN 'reader'::access_level WHEN 'admin'::text THEN 'admin'::access_level ELSE 'member'::access_level END ELSE NULL::access_level END
;
CREATE OR REPLACE FUNCTION public.inntak_defer_job(p_id bigint, p_delay interval, p_attempts integer)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
declare
  v_job_id bigint;
begin
  v_job_id := inntak_schedule_job(p_id, now() + p_delay);
  perform graphile_worker.reschedule_jobs(array[v_job_id], attempts => p_attempts);
  update job_queue set attempts = p_attempts where id = p_id;
end;
$function$
;
CREATE OR REPLACE FUNCTION public.inntak_enqueue_job(p_job_type text, p_payload jsonb, p_max_attempts integer DEFAULT NULL::integer, p_run_at timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
declare
  v_id bigint;
begin
  insert into job_queue (job_type, payload, max_attempts)
    values (p_job_type, coalesce(p_payload, '{}'), coalesce(p_max_attempts, 25))
    returning id into v_id;
  perform inntak_schedule_job(v_id, p_run_at);
  return v_id;
end;
$function$
;
CREATE OR REPLACE FUNCTION public.inntak_inherited_access(access access_level, metadata jsonb)
 RETURNS access_level
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN LEAST(access, CASE (metadata ->> 'max_access'::text) WHEN 'reader'::text THEN 'reader'::access_level WHEN 'member'::text THEN 'member'::access_level WHEN 'admin'::text THEN 'admin'::access_level ELSE 'owner'::access_level END)
;
CREATE OR REPLACE FUNCTION public.inntak_intake_notices(p_nodes uuid[], p_edges uuid[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
begin
  for i in 1 .. coalesce(cardinality(p_nodes), 0) loop
    perform pg_notify('inntak_nodes', jsonb_build_object('op', 'insert', 'id', p_nodes[i], 'at', clock_timestamp())::text);
    perform pg_notify('inntak_edges', jsonb_build_object('op', 'insert', 'id', p_edges[i], 'at', clock_timestamp())::text);
    perform pg_notify('inntak_access', jsonb_build_object('op', 'insert', 'subject_id', a.subject_id,
      'object_id', a.object_id, 'at', clock_timestamp())::text)
      from node_access a where a.object_id = p_nodes[i];
  end loop;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_intake_refuse(p_id uuid, p_webhook_id uuid, p_received_at timestamp with time zone, p_status smallint, p_error text, p_delivery_id text, p_event text, p_bytes bigint, p_duration_ms integer, p_reason text, p_headers jsonb, p_body text, p_body_truncated boolean, p_keep integer)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
declare
  keep boolean;
begin
  keep := (select coalesce(sum(r.kept), 0) from webhook_refusals r
            where r.webhook_id = p_webhook_id and r.minute = date_trunc('minute', p_received_at)) < p_keep;
  insert into webhook_refusals as r (webhook_id, minute, status, reason, id, first_received_at, last_received_at,
                                     error, delivery_id, event, bytes, duration_ms, kept)
  values (p_webhook_id, date_trunc('minute', p_received_at), p_status, p_reason, p_id, p_received_at, p_received_at,
          p_error, p_delivery_id, p_event, p_bytes, p_duration_ms, case when keep then 1 else 0 end)
  on conflict (webhook_id, minute, status, reason) do update
    set count = r.count + 1,
        kept = r.kept + excluded.kept,
        first_received_at = least(r.first_received_at, excluded.first_received_at),
        last_received_at = greatest(r.last_received_at, excluded.last_received_at),
        bytes = r.bytes + excluded.bytes,
        duration_ms = greatest(r.duration_ms, excluded.duration_ms);
  if keep then
    insert into webhook_refused_requests (id, webhook_id, received_at, status, error, delivery_id, event, bytes,
                                          duration_ms, headers, body, body_truncated)
    values (p_id, p_webhook_id, p_received_at, p_status, p_error, p_delivery_id, p_event, p_bytes, p_duration_ms,
            coalesce(p_headers, '{}'), p_body, p_body_truncated);
  end if;
  return keep;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_intake_refuse(p_id uuid, p_webhook_id uuid, p_received_at timestamp with time zone, p_status smallint, p_error text, p_delivery_id text, p_event text, p_bytes bigint, p_duration_ms integer, p_reason text, p_headers jsonb, p_body text, p_body_truncated boolean, p_keep integer, p_previous_token text)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
declare
  kept boolean;
begin
  kept := inntak_intake_refuse($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14);
  if p_previous_token is not null then
    update webhook_previous_tokens t set hits = t.hits + 1, last_hit_at = greatest(t.last_hit_at, p_received_at)
     where t.token_hash = p_previous_token;
    update webhook_refusals r set previous_token = true
     where r.webhook_id = p_webhook_id and r.minute = date_trunc('minute', p_received_at)
       and r.status = p_status and r.reason = p_reason;
  end if;
  return kept;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_intake_write(node_id uuid, node_kind text, node_title text, node_content text, node_visibility visibility, node_metadata jsonb, node_created_by uuid, edge_id uuid, edge_source_id uuid, edge_target_id uuid, edge_type text, edge_metadata jsonb, edge_system boolean, edge_created_by uuid, log_id uuid, log_webhook_id uuid, log_received_at timestamp with time zone, log_delivery_id text, log_event text, log_bytes bigint, log_duration_ms integer)
 RETURNS TABLE(propagation_error text, duplicate_node_id uuid, duplicate_edge_id uuid)
 LANGUAGE plpgsql
AS $function$
begin
  return query select * from inntak_intake_write($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
                                                 $15, $16, $17, $18, $19, $20, $21, null::jsonb);
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_intake_write(node_id uuid, node_kind text, node_title text, node_content text, node_visibility visibility, node_metadata jsonb, node_created_by uuid, edge_id uuid, edge_source_id uuid, edge_target_id uuid, edge_type text, edge_metadata jsonb, edge_system boolean, edge_created_by uuid, log_id uuid, log_webhook_id uuid, log_received_at timestamp with time zone, log_delivery_id text, log_event text, log_bytes bigint, log_duration_ms integer, log_headers jsonb)
 RETURNS TABLE(propagation_error text, duplicate_node_id uuid, duplicate_edge_id uuid)
 LANGUAGE plpgsql
AS $function$
declare
  step text := 'nodes';
  failure text;
  state text;
  message text;
  detail text;
  original record;
begin
  if log_delivery_id is not null then
    insert into webhook_delivery_ids as claim (webhook_id, delivery_id, node_id, edge_id)
    values (log_webhook_id, log_delivery_id, node_id, edge_id)
    on conflict on constraint webhook_delivery_ids_pkey do update
      set node_id = excluded.node_id, edge_id = excluded.edge_id, claimed_at = now()
      where claim.claimed_at < now() - interval '24 hours';
    if not found then
      select c.node_id, c.edge_id into original from webhook_delivery_ids c
       where c.webhook_id = log_webhook_id and c.delivery_id = log_delivery_id;
      insert into webhook_deliveries (id, webhook_id, received_at, status, node_id, edge_id, delivery_id, event, duplicate, bytes, duration_ms, headers)
      values (log_id, log_webhook_id, log_received_at, 200, original.node_id, original.edge_id,
              log_delivery_id, log_event, true, log_bytes, log_duration_ms, coalesce(log_headers, '{}'));
      return query select null::text, original.node_id, original.edge_id;
      return;
    end if;
  end if;
  begin
    insert into nodes (id, node_kind, title, content, visibility, metadata, created_by)
    values (node_id, node_kind, node_title, node_content, node_visibility, node_metadata, node_created_by);
    step := 'edges';
    insert into edges (id, source_id, target_id, edge_type, metadata, system, created_by)
    values (edge_id, edge_source_id, edge_target_id, edge_type, edge_metadata, edge_system, edge_created_by);
  exception when others then
    get stacked diagnostics state = returned_sqlstate, message = message_text, detail = pg_exception_detail;
    raise exception using errcode = state, message = message, detail = detail, table = step;
  end;
  failure := inntak_try_propagate_belongs_to(edge_id);
  if failure is not null then
    perform inntak_enqueue_job('access_repair', jsonb_build_object('edge_id', edge_id));
  end if;
  insert into webhook_deliveries (id, webhook_id, received_at, status, node_id, edge_id, delivery_id, event, bytes, duration_ms, headers)
  values (log_id, log_webhook_id, log_received_at, 200, node_id, edge_id,
          log_delivery_id, log_event, log_bytes, log_duration_ms, coalesce(log_headers, '{}'));
  return query select failure, null::uuid, null::uuid;
end
$function$
;
CREATE OR REPLACE FUNCTION public.inntak_intake_write_batch(p_node_id uuid[], p_node_kind text[], p_node_title text[], p_node_content text[], p_node_visibility visibility[], p_node_metadata jsonb[], p_node_created_by uuid[], p_edge_id uuid[], p_edge_source_id uuid[], p_edge_target_id uuid[], p_edge_type text[], p_edge_metadata jsonb[], p_edge_system boolean[], p_edge_created_by uuid[], p_log_id uuid[], p_log_webhook_id uuid[], p_log_received_at timestamp with time zone[], p_log_delivery_id text[], p_log_event text[], p_log_bytes bigint[], p_log_duration_ms integer[], p_log_headers jsonb[], p_log_previous_token text[])
 RETURNS TABLE(propagation_error text, duplicate_node_id uuid, duplicate_edge_id uuid)
 LANGUAGE plpgsql
AS $function$
declare
  v_count integer := coalesce(cardinality(p_node_id), 0);
  -- Per write: true when it is not a duplicate, so its node, edge and access rows are written.
  v_fresh boolean[];
  -- Per write: a duplicate's first copy (null for the others, or null arrays when none is).
  v_original_nodes uuid[];
  v_original_edges uuid[];
  v_failures text[] := array_fill(null::text, array[v_count]);
begin
  perform set_config('inntak.notices_after_commit', 'on', true);
  if v_count = 0 then
    return;
  end if;

  -- The claims, in key order so two batches claiming the same ids cannot deadlock. A write is
  -- fresh when it has no delivery id, or is the first of its id in the batch and its claim was
  -- inserted (or taken over from a copy older than 24 hours).
  with batch as (
    select b.webhook_id, b.delivery_id, b.ord::integer as ord
      from unnest(p_log_webhook_id, p_log_delivery_id) with ordinality b(webhook_id, delivery_id, ord)
  ), firsts as (
    select distinct on (b.webhook_id, b.delivery_id) b.webhook_id, b.delivery_id, b.ord
      from batch b where b.delivery_id is not null
     order by b.webhook_id, b.delivery_id, b.ord
  ), claimed as (
    insert into webhook_delivery_ids as claim (webhook_id, delivery_id, node_id, edge_id)
    select f.webhook_id, f.delivery_id, p_node_id[f.ord], p_edge_id[f.ord] from firsts f
     order by f.webhook_id, f.delivery_id
    on conflict on constraint webhook_delivery_ids_pkey do update
      set node_id = excluded.node_id, edge_id = excluded.edge_id, claimed_at = now()
      where claim.claimed_at < now() - interval '24 hours'
    returning claim.webhook_id, claim.delivery_id
  )
  select array_agg(b.delivery_id is null or c.ord is not null order by b.ord) into v_fresh
    from batch b
    left join (select f.ord from claimed c join firsts f on f.webhook_id = c.webhook_id and f.delivery_id = c.delivery_id) c
      on c.ord = b.ord;

  -- The duplicates' first copies, read after the claims (a statement of its own, so a claim
  -- committed meanwhile by another batch is seen, as 037 reads it). Rare, so planned each time
  -- (execute): a PL/pgSQL statement keeps the plan its session made first (041), and one made
  -- while webhook_delivery_ids was small scans the whole table.
  if false = any(v_fresh) then
    execute 'select array_agg(c.node_id order by b.ord), array_agg(c.edge_id order by b.ord)
               from unnest($1, $2, $3) with ordinality b(fresh, webhook_id, delivery_id, ord)
               left join webhook_delivery_ids c on not b.fresh and c.webhook_id = b.webhook_id and c.delivery_id = b.delivery_id'
      into v_original_nodes, v_original_edges
      using v_fresh, p_log_webhook_id, p_log_delivery_id;
  end if;

  insert into nodes (id, node_kind, title, content, visibility, metadata, created_by)
  select b.id, b.node_kind, b.title, b.content, b.visibility, b.metadata, b.created_by
    from unnest(v_fresh, p_node_id, p_node_kind, p_node_title, p_node_content, p_node_visibility, p_node_metadata, p_node_created_by)
         b(fresh, id, node_kind, title, content, visibility, metadata, created_by)
   where b.fresh;

  insert into edges (id, source_id, target_id, edge_type, metadata, system, created_by)
  select b.id, b.source_id, b.target_id, b.edge_type, b.metadata, b.system, b.created_by
    from unnest(v_fresh, p_edge_id, p_edge_source_id, p_edge_target_id, p_edge_type, p_edge_metadata, p_edge_system, p_edge_created_by)
         b(fresh, id, source_id, target_id, edge_type, metadata, system, created_by)
   where b.fresh;

  -- inntak_propagate_belongs_to (007) for every fresh edge at once, from the edges as just
  -- inserted. Two edges giving one subject access to one source (not an intake's own, whose
  -- sources are its new nodes) would be one row touched twice: the strongest is offered, the
  -- first of equals, which is where one edge after the other would have ended.
  begin
    insert into node_access as a (subject_id, object_id, access, via_edge)
    select distinct on (t.subject_id, b.source_id) t.subject_id, b.source_id, inntak_inherited_access(t.access, b.metadata), b.id
      from unnest(v_fresh, p_edge_id, p_edge_source_id, p_edge_target_id, p_edge_type, p_edge_metadata) with ordinality
           b(fresh, id, source_id, target_id, edge_type, metadata, ord)
      join node_access t on t.object_id = b.target_id
     where b.fresh and b.edge_type = 'belongs_to' and t.subject_id <> b.source_id
     order by t.subject_id, b.source_id, inntak_inherited_access(t.access, b.metadata) desc, b.ord
    on conflict (subject_id, object_id) do update
       set access = excluded.access, via_edge = excluded.via_edge
     where a.access < excluded.access;
  exception when others then
    -- Rare: each edge alone, so only those that fail alone are answered with the error.
    for i in 1 .. v_count loop
      if v_fresh[i] then
        v_failures[i] := inntak_try_propagate_belongs_to(p_edge_id[i]);
        if v_failures[i] is not null then
          perform inntak_enqueue_job('access_repair', jsonb_build_object('edge_id', p_edge_id[i]));
        end if;
      end if;
    end loop;
  end;

  -- The log rows; a previous token's delivery is marked in its insert (037 updated it after).
  insert into webhook_deliveries (id, webhook_id, received_at, status, node_id, edge_id, delivery_id, event, duplicate,
                                  bytes, duration_ms, headers, previous_token)
  select b.id, b.webhook_id, b.received_at, 200,
         case when b.fresh then b.node_id else b.original_node end, case when b.fresh then b.edge_id else b.original_edge end,
         b.delivery_id, b.event, not b.fresh, b.bytes, b.duration_ms, coalesce(b.headers, '{}'), b.previous_token is not null
    from unnest(v_fresh, p_node_id, p_edge_id, v_original_nodes, v_original_edges, p_log_id, p_log_webhook_id, p_log_received_at,
                p_log_delivery_id, p_log_event, p_log_bytes, p_log_duration_ms, p_log_headers, p_log_previous_token)
         b(fresh, node_id, edge_id, original_node, original_edge, id, webhook_id, received_at,
           delivery_id, event, bytes, duration_ms, headers, previous_token);

  -- A previous token's hits, duplicates included as 037 counts them: one update per token.
  if cardinality(array_remove(p_log_previous_token, null)) > 0 then
    update webhook_previous_tokens t set hits = t.hits + h.hits, last_hit_at = greatest(t.last_hit_at, h.last_hit_at)
      from (select b.token_hash, count(*) as hits, max(b.received_at) as last_hit_at
              from unnest(p_log_previous_token, p_log_received_at) b(token_hash, received_at)
             where b.token_hash is not null group by b.token_hash) h
     where t.token_hash = h.token_hash;
  end if;

  return query select v_failures[i], v_original_nodes[i], v_original_edges[i] from generate_series(1, v_count) i;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_intake_write_quiet(node_id uuid, node_kind text, node_title text, node_content text, node_visibility visibility, node_metadata jsonb, node_created_by uuid, edge_id uuid, edge_source_id uuid, edge_target_id uuid, edge_type text, edge_metadata jsonb, edge_system boolean, edge_created_by uuid, log_id uuid, log_webhook_id uuid, log_received_at timestamp with time zone, log_delivery_id text, log_event text, log_bytes bigint, log_duration_ms integer)
 RETURNS TABLE(propagation_error text, duplicate_node_id uuid, duplicate_edge_id uuid)
 LANGUAGE plpgsql
AS $function$
begin
  perform set_config('inntak.notices_after_commit', 'on', true);
  return query select * from inntak_intake_write($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
                                                 $15, $16, $17, $18, $19, $20, $21);
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_intake_write_quiet(node_id uuid, node_kind text, node_title text, node_content text, node_visibility visibility, node_metadata jsonb, node_created_by uuid, edge_id uuid, edge_source_id uuid, edge_target_id uuid, edge_type text, edge_metadata jsonb, edge_system boolean, edge_created_by uuid, log_id uuid, log_webhook_id uuid, log_received_at timestamp with time zone, log_delivery_id text, log_event text, log_bytes bigint, log_duration_ms integer, log_headers jsonb)
 RETURNS TABLE(propagation_error text, duplicate_node_id uuid, duplicate_edge_id uuid)
 LANGUAGE plpgsql
AS $function$
begin
  perform set_config('inntak.notices_after_commit', 'on', true);
  return query select * from inntak_intake_write($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
                                                 $15, $16, $17, $18, $19, $20, $21, $22);
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_intake_write_quiet(node_id uuid, node_kind text, node_title text, node_content text, node_visibility visibility, node_metadata jsonb, node_created_by uuid, edge_id uuid, edge_source_id uuid, edge_target_id uuid, edge_type text, edge_metadata jsonb, edge_system boolean, edge_created_by uuid, log_id uuid, log_webhook_id uuid, log_received_at timestamp with time zone, log_delivery_id text, log_event text, log_bytes bigint, log_duration_ms integer, log_headers jsonb, log_previous_token text)
 RETURNS TABLE(propagation_error text, duplicate_node_id uuid, duplicate_edge_id uuid)
 LANGUAGE plpgsql
AS $function$
begin
  return query select * from inntak_intake_write_quiet($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
                                                       $15, $16, $17, $18, $19, $20, $21, log_headers);
  if log_previous_token is not null then
    update webhook_deliveries d set previous_token = true where d.id = log_id;
    update webhook_previous_tokens t set hits = t.hits + 1, last_hit_at = greatest(t.last_hit_at, log_received_at)
     where t.token_hash = log_previous_token;
  end if;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_intake_write_quiet(node_id uuid, node_kind text, node_title text, node_content text, node_visibility visibility, node_metadata jsonb, node_created_by uuid, edge_id uuid, edge_source_id uuid, edge_target_id uuid, edge_type text, edge_metadata jsonb, edge_system boolean, edge_created_by uuid, log_id uuid, log_webhook_id uuid, log_received_at timestamp with time zone, log_delivery_id text, log_event text, log_bytes bigint, log_duration_ms integer, log_previous_token text)
 RETURNS TABLE(propagation_error text, duplicate_node_id uuid, duplicate_edge_id uuid)
 LANGUAGE plpgsql
AS $function$
begin
  return query select * from inntak_intake_write_quiet($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
                                                       $15, $16, $17, $18, $19, $20, $21);
  if log_previous_token is not null then
    update webhook_deliveries d set previous_token = true where d.id = log_id;
    update webhook_previous_tokens t set hits = t.hits + 1, last_hit_at = greatest(t.last_hit_at, log_received_at)
     where t.token_hash = log_previous_token;
  end if;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_matching_orchestrations(p_event text, p_id uuid)
 RETURNS SETOF uuid
 LANGUAGE plpgsql
 STABLE
 SET enable_seqscan TO 'off'
AS $function$
declare
  v_node nodes;
  v_edge edges;
  v_target nodes;
  v_scopes uuid[];
  v_keys text[];
  v_readers uuid[];
  v_everyone boolean;
  v_sees_all boolean := false;
  v_candidates uuid[];
begin
  if p_event in ('node.created', 'node.updated') then
    select * into v_node from nodes where id = p_id;
    if not found then return; end if;
    v_scopes := array(select target_id from edges where source_id = p_id and edge_type = 'belongs_to');
    v_keys := inntak_orchestration_node_keys(v_node);
    v_everyone := coalesce(v_node.visibility in ('readable', 'open'), false);
    v_sees_all := v_everyone;
    v_readers := array(select subject_id from node_access where object_id = p_id) || v_node.created_by;
  elsif p_event = 'edge.created' then
    select * into v_edge from edges where id = p_id;
    if not found then return; end if;
    select * into v_node from nodes where id = v_edge.source_id;
    select * into v_target from nodes where id = v_edge.target_id;
    v_scopes := array[v_edge.source_id, v_edge.target_id];
    v_keys := inntak_orchestration_node_keys(v_node) || ('edge_type:' || v_edge.edge_type);
    v_sees_all := coalesce(not v_edge.system and (v_node.visibility <> 'hidden' or v_target.visibility <> 'hidden'), false);
    v_everyone := v_sees_all and coalesce(v_node.visibility in ('readable', 'open'), false);
    v_readers := array(select subject_id from node_access where object_id in (v_edge.source_id, v_edge.target_id))
                 || v_node.created_by || v_target.created_by;
  else
    return;
  end if;
  v_candidates := array(
    select s.orchestration_id from orchestration_subscriptions s
      where s.probe = any(array(select format('o|%s|%s|%s', p_event, sc, k) from unnest(v_scopes) sc, unnest(v_keys) k))
    union
    select s.orchestration_id from orchestration_subscriptions s
      where not v_everyone
        and s.probe = any(array(select format('c|%s|%s|%s', p_event, r, k) from unnest(v_readers) r, unnest(v_keys) k where r is not null))
    union
    select s.orchestration_id from orchestration_subscriptions s
      where v_sees_all and s.any_probe = any(array(select format('%s|%s', p_event, k) from unnest(v_keys) k))
        and (v_everyone or not s.needs_source));
  if cardinality(v_candidates) = 0 then return; end if;
  return query select inntak_orchestration_matches(p_event, p_id, v_candidates);
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_node_access_inserted()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  if current_setting('inntak.notices_after_commit', true) is distinct from 'on' then
    perform pg_notify('inntak_access', jsonb_build_object('op', 'insert', 'subject_id', c.subject_id,
      'object_id', c.object_id, 'at', clock_timestamp())::text) from changed c;
  end if;
  perform inntak_node_search_readers_of(array(select distinct c.object_id from changed c));
  return null;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_node_audience_facts(node_id uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  select coalesce(
    (select jsonb_build_object(
       'created_by', n.created_by,
       'visibility', n.visibility,
       'access', coalesce((select jsonb_agg(jsonb_build_array(a.subject_id, a.access))
                             from node_access a where a.object_id = n.id), '[]'::jsonb))
       from nodes n where n.id = node_id),
    nullif(current_setting('inntak.n' || replace(node_id::text, '-', ''), true), '')::jsonb)
$function$
;
CREATE OR REPLACE FUNCTION public.inntak_node_readers(node uuid)
 RETURNS tsvector
 LANGUAGE plpgsql
 STABLE PARALLEL SAFE
AS $function$
begin
  return coalesce((select array_to_tsvector(array_agg(inntak_reader_lexeme(a.subject_id))) from node_access a where a.object_id = node), ''::tsvector);
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_node_search_access()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  perform inntak_node_search_readers_of(array(select distinct c.object_id from changed c));
  return null;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_node_search_access_moved()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  update node_search s set readers = inntak_node_readers(s.node_id) where s.node_id in (old.object_id, new.object_id);
  return null;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_node_search_reader()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  update node_search set visibility = new.visibility, created_by = new.created_by where node_id = new.id;
  return null;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_node_search_readers_of(ids uuid[])
 RETURNS void
 LANGUAGE plpgsql
AS $function$
declare
  id uuid;
begin
  if cardinality(ids) > 1000 then
    update node_search s set readers = inntak_node_readers(s.node_id) where s.node_id = any(ids);
    return;
  end if;
  foreach id in array ids loop
    update node_search set readers = inntak_node_readers(id) where node_id = id;
  end loop;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_notify_change()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
declare
  changed jsonb := to_jsonb(case when tg_op = 'DELETE' then old else new end);
  payload jsonb := jsonb_build_object('op', lower(tg_op));
  facts jsonb;
begin
  if tg_table_name = 'node_access' then
    payload := payload || jsonb_build_object('subject_id', changed -> 'subject_id', 'object_id', changed -> 'object_id');
  else
    payload := payload || jsonb_build_object('id', changed -> 'id');
  end if;
  if tg_op = 'DELETE' then
    payload := payload || jsonb_build_object('old', changed);
    if tg_table_name = 'nodes' then
      facts := inntak_node_audience_facts((changed ->> 'id')::uuid);
      perform set_config('inntak.n' || replace(changed ->> 'id', '-', ''), facts::text, true);
      payload := payload || jsonb_build_object('facts', facts);
    elsif tg_table_name = 'edges' then
      payload := payload || jsonb_build_object(
        'source', inntak_node_audience_facts((changed ->> 'source_id')::uuid),
        'target', inntak_node_audience_facts((changed ->> 'target_id')::uuid));
    else
      payload := payload || jsonb_build_object('object', inntak_node_audience_facts((changed ->> 'object_id')::uuid));
    end if;
  end if;
  perform inntak_realtime_notify(tg_argv[0], payload);
  if tg_op = 'DELETE' then
    return old;
  end if;
  return null;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_notify_mixer_change()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  perform inntak_realtime_notify('inntak_mixer', jsonb_build_object('op', lower(tg_op), 'id', new.id));
  return null;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_notify_webhook_grace()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  perform inntak_realtime_notify('inntak_webhooks', jsonb_build_object('op', lower(tg_op),
    'webhook_id', case when tg_op = 'DELETE' then old.webhook_id else new.webhook_id end));
  return null;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_notify_webhook_secret()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  perform inntak_realtime_notify('inntak_webhooks', jsonb_build_object('op', lower(tg_op),
    'webhook_id', case when tg_op = 'DELETE' then old.webhook_id else new.webhook_id end));
  return null;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_notify_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  if tg_table_name = 'node_access' then
    perform pg_notify(tg_argv[0], jsonb_build_object('op', lower(tg_op), 'subject_id', new.subject_id,
      'object_id', new.object_id, 'at', clock_timestamp())::text);
  else
    perform pg_notify(tg_argv[0], jsonb_build_object('op', lower(tg_op), 'id', new.id, 'at', clock_timestamp())::text);
  end if;
  return null;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_orchestration_changes(p_old nodes, p_new nodes)
 RETURNS text[]
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select array(select c from (values ('title', p_old.title is distinct from p_new.title),
                                     ('content', p_old.content is distinct from p_new.content),
                                     ('visibility', p_old.visibility is distinct from p_new.visibility),
                                     ('node_kind', p_old.node_kind is distinct from p_new.node_kind)) v(c, changed) where changed)
      || array(select 'metadata.' || k
               from (select jsonb_object_keys(case when jsonb_typeof(p_old.metadata) = 'object' then p_old.metadata else '{}' end) k
                     union select jsonb_object_keys(case when jsonb_typeof(p_new.metadata) = 'object' then p_new.metadata else '{}' end)) ks
               where p_old.metadata -> k is distinct from p_new.metadata -> k
               order by k)
$function$
;
CREATE OR REPLACE FUNCTION public.inntak_orchestration_conditions_hold(p_conditions jsonb, p_node nodes, p_edge_type text)
 RETURNS boolean
 LANGUAGE sql
 STABLE
AS $function$
  select jsonb_typeof(p_conditions) is distinct from 'object' or (
    (p_conditions ->> 'node_kind' is null or p_conditions ->> 'node_kind' = p_node.node_kind)
    and (p_conditions ->> 'edge_type' is null or p_conditions ->> 'edge_type' = p_edge_type)
    and (p_conditions ->> 'has_trait' is null
         or (jsonb_typeof(p_node.metadata -> 'traits') = 'array' and (p_node.metadata -> 'traits') ? (p_conditions ->> 'has_trait')))
    and (p_conditions ->> 'has_tag' is null or exists (
          select 1 from edges e join nodes t on t.id = e.target_id
          where e.source_id = p_node.id and e.edge_type = 'tagged'
            and t.node_kind = 'tag' and t.metadata ->> 'tag' = p_conditions ->> 'has_tag')))
$function$
;
CREATE OR REPLACE FUNCTION public.inntak_orchestration_default_budget()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
RETURN 100
;
CREATE OR REPLACE FUNCTION public.inntak_orchestration_matches(p_event text, p_id uuid, p_candidates uuid[])
 RETURNS SETOF uuid
 LANGUAGE sql
 STABLE
AS $function$
  select o.id
  from nodes n
  cross join unnest(p_candidates) c(id)
  join nodes o on o.id = c.id and o.node_kind = 'orchestration' and o.metadata -> 'trigger' ->> 'event' = p_event
  where p_event in ('node.created', 'node.updated') and n.id = p_id
    and o.id <> n.id and o.created_by is not null
    and inntak_orchestration_conditions_hold(o.metadata -> 'trigger' -> 'conditions', n, null)
    and (not exists (select 1 from edges ob where ob.source_id = o.id and ob.edge_type = 'observes')
         or exists (select 1 from edges ob join edges b on b.target_id = ob.target_id
                    where ob.source_id = o.id and ob.edge_type = 'observes'
                      and b.source_id = n.id and b.edge_type = 'belongs_to'))
    and inntak_reads_node(o.created_by, n)
  union all
  select o.id
  from edges e
  join nodes s on s.id = e.source_id
  cross join unnest(p_candidates) c(id)
  join nodes o on o.id = c.id and o.node_kind = 'orchestration' and o.metadata -> 'trigger' ->> 'event' = 'edge.created'
  where p_event = 'edge.created' and e.id = p_id
    and o.id not in (e.source_id, e.target_id) and o.created_by is not null
    and inntak_orchestration_conditions_hold(o.metadata -> 'trigger' -> 'conditions', s, e.edge_type)
    and (not exists (select 1 from edges ob where ob.source_id = o.id and ob.edge_type = 'observes')
         or exists (select 1 from edges ob
                    where ob.source_id = o.id and ob.edge_type = 'observes'
                      and ob.target_id in (e.source_id, e.target_id)))
    and inntak_sees_edge(o.created_by, e)
    and ((o.metadata -> 'trigger' -> 'conditions' ?| array['node_kind', 'has_trait', 'has_tag']) is not true
         or inntak_reads_node(o.created_by, s))
$function$
;
CREATE OR REPLACE FUNCTION public.inntak_orchestration_max_depth()
 RETURNS integer
 LANGUAGE sql
 IMMUTABLE
RETURN 5
;
CREATE OR REPLACE FUNCTION public.inntak_orchestration_nil()
 RETURNS uuid
 LANGUAGE sql
 IMMUTABLE
RETURN '00000000-0000-0000-0000-000000000000'::uuid
;
CREATE OR REPLACE FUNCTION public.inntak_orchestration_node_keys(p_node nodes)
 RETURNS text[]
 LANGUAGE plpgsql
 STABLE
AS $function$
begin
  return array['', 'node_kind:' || p_node.node_kind]
    || array(select 'has_trait:' || (x.v #>> '{}')
             from jsonb_array_elements(case when jsonb_typeof(p_node.metadata -> 'traits') = 'array' then p_node.metadata -> 'traits' else '[]'::jsonb end) as x(v)
             where jsonb_typeof(x.v) = 'string')
    || array(select 'has_tag:' || (t.metadata ->> 'tag')
             from edges e join nodes t on t.id = e.target_id
             where e.source_id = p_node.id and e.edge_type = 'tagged' and t.node_kind = 'tag' and t.metadata ->> 'tag' is not null);
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_orchestration_on_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
declare
  v_changes text[];
  v_depth integer;
  v_orchestration uuid;
begin
  if not exists (select 1 from nodes where node_kind = 'orchestration' and metadata -> 'trigger' ->> 'event' = 'node.updated') then
    return null;
  end if;
  v_changes := inntak_orchestration_changes(old, new);
  if cardinality(v_changes) = 0 then return null; end if;
  v_depth := coalesce(nullif(current_setting('inntak.orchestration_depth', true), '')::integer + 1, 0);
  for v_orchestration in select * from inntak_matching_orchestrations('node.updated', new.id) loop
    perform inntak_orchestration_queue(v_orchestration, 'node.updated', new.id,
      jsonb_build_object('type', 'node.updated', 'id', new.id, 'depth', v_depth, 'changes', to_jsonb(v_changes)), false);
  end loop;
  return null;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_orchestration_on_write()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
declare
  v_event text := case tg_table_name when 'nodes' then 'node.created' else 'edge.created' end;
  v_depth integer;
  v_orchestration uuid;
begin
  if not exists (select 1 from nodes where node_kind = 'orchestration' and metadata -> 'trigger' ->> 'event' = v_event) then
    return null;
  end if;
  v_depth := coalesce(nullif(current_setting('inntak.orchestration_depth', true), '')::integer + 1, 0);
  for v_orchestration in select * from inntak_matching_orchestrations(v_event, new.id) loop
    perform inntak_orchestration_queue(v_orchestration, v_event, new.id,
      jsonb_build_object('type', v_event, 'id', new.id, 'depth', v_depth), true);
  end loop;
  return null;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_orchestration_queue(p_orchestration uuid, p_event text, p_subject uuid, p_ref jsonb, p_once boolean)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
declare
  v_depth integer := (p_ref ->> 'depth')::integer;
  v_root uuid;
  v_budget integer;
  v_run uuid;
  v_job bigint;
begin
  v_root := case when v_depth = 0 then p_subject
                 else coalesce(nullif(current_setting('inntak.orchestration_root', true), '')::uuid, p_subject) end;
  v_budget := coalesce(nullif(current_setting('inntak.orchestration_budget', true), '')::integer, inntak_orchestration_default_budget());
  if v_depth >= inntak_orchestration_max_depth() then
    insert into orchestration_log (orchestration_id, status, error, event)
    values (p_orchestration, 'skipped',
            format('Ikke kjørt: dybdegrensen (%s) er nådd; hendelsen kom fra en kjede av %s orkestreringskjøringer', inntak_orchestration_max_depth(), v_depth),
            p_ref);
    return;
  end if;
  if p_once and exists (select 1 from orchestration_runs
                        where orchestration_id = p_orchestration and event_type = p_event and subject_id = p_subject) then
    return;
  end if;
  if v_depth > 0 and not inntak_orchestration_spend(v_root, v_budget) then
    insert into orchestration_log (orchestration_id, status, error, event)
    values (p_orchestration, 'skipped', format('Ikke kjørt: budsjettet på %s handlinger for hendelsen %s er brukt opp', v_budget, v_root), p_ref);
    return;
  end if;
  insert into orchestration_runs (orchestration_id, event_type, subject_id, depth, root_id, event)
    values (p_orchestration, p_event, p_subject, v_depth, v_root, p_ref)
    on conflict do nothing
    returning id into v_run;
  if v_run is not null then
    v_job := inntak_enqueue_job('orchestrate', jsonb_build_object('orchestration_id', p_orchestration, 'event', p_ref, 'root', v_root, 'run_id', v_run), 1);
    update orchestration_runs set job_id = v_job where id = v_run;
  end if;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_orchestration_selector(p_conditions jsonb)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE
AS $function$
  select case
    when jsonb_typeof(p_conditions) is distinct from 'object' then ''
    when p_conditions ->> 'has_tag' is not null then 'has_tag:' || (p_conditions ->> 'has_tag')
    when p_conditions ->> 'has_trait' is not null then 'has_trait:' || (p_conditions ->> 'has_trait')
    when p_conditions ->> 'node_kind' is not null then 'node_kind:' || (p_conditions ->> 'node_kind')
    when p_conditions ->> 'edge_type' is not null then 'edge_type:' || (p_conditions ->> 'edge_type')
    else ''
  end
$function$
;
CREATE OR REPLACE FUNCTION public.inntak_orchestration_spend(p_root uuid, p_budget integer)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
begin
  if coalesce(p_budget, inntak_orchestration_default_budget()) < 1 then return false; end if;
  insert into orchestration_budgets as b (root_id, spent) values (p_root, 1)
    on conflict (root_id) do update set spent = b.spent + 1
    where b.spent < coalesce(p_budget, inntak_orchestration_default_budget());
  return found;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_orchestration_subscribe(p_orchestration uuid)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
begin
  delete from orchestration_subscriptions where orchestration_id = p_orchestration;
  insert into orchestration_subscriptions (orchestration_id, event, scope, selector, creator, needs_source, probe, any_probe)
  select id, event, coalesce(observed, inntak_orchestration_nil()), selector, creator, needs_source,
         case when observed is null then format('c|%s|%s|%s', event, creator, selector)
              else format('o|%s|%s|%s', event, observed, selector) end,
         case when observed is null then format('%s|%s', event, selector) end
  from (
    select o.id, o.metadata -> 'trigger' ->> 'event' as event, ob.target_id as observed,
           inntak_orchestration_selector(o.metadata -> 'trigger' -> 'conditions') as selector, o.created_by as creator,
           (o.metadata -> 'trigger' -> 'conditions' ?| array['node_kind', 'has_trait', 'has_tag']) is true as needs_source
    from nodes o
    left join (select distinct target_id from edges where source_id = p_orchestration and edge_type = 'observes') ob on true
    where o.id = p_orchestration and o.node_kind = 'orchestration' and o.created_by is not null
      and o.metadata -> 'trigger' ->> 'event' in ('node.created', 'edge.created', 'node.updated')
      and (o.metadata ->> 'enabled') is distinct from 'false'
  ) subscription
  on conflict do nothing;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_orchestration_subscriptions_on_edge()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  if tg_op in ('INSERT', 'UPDATE') and new.edge_type = 'observes' then
    perform inntak_orchestration_subscribe(new.source_id);
  end if;
  if tg_op in ('DELETE', 'UPDATE') and old.edge_type = 'observes' and (tg_op = 'DELETE' or old.source_id is distinct from new.source_id or new.edge_type <> 'observes') then
    perform inntak_orchestration_subscribe(old.source_id);
  end if;
  return null;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_orchestration_subscriptions_on_node()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  perform inntak_orchestration_subscribe(new.id);
  return null;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_propagate_belongs_to(edge uuid)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
declare
  written integer;
begin
  insert into node_access (subject_id, object_id, access, via_edge)
  select a.subject_id, e.source_id, inntak_inherited_access(a.access, e.metadata), e.id
    from edges e
    join node_access a on a.object_id = e.target_id
   where e.id = edge and e.edge_type = 'belongs_to' and a.subject_id <> e.source_id
  on conflict (subject_id, object_id) do update
     set access = excluded.access, via_edge = excluded.via_edge
   where node_access.access < excluded.access;
  get diagnostics written = row_count;
  return written;
end
$function$
;
CREATE OR REPLACE FUNCTION public.inntak_reader_lexeme(subject uuid)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN replace((subject)::text, '-'::text, ''::text)
;
CREATE OR REPLACE FUNCTION public.inntak_reads_node(p_reader uuid, p_node nodes)
 RETURNS boolean
 LANGUAGE sql
 STABLE
AS $function$
  select p_node.created_by = p_reader
    or p_node.visibility in ('readable', 'open')
    or exists (select 1 from node_access a where a.object_id = p_node.id and a.subject_id = p_reader)
$function$
;
CREATE OR REPLACE FUNCTION public.inntak_realtime_notify(channel text, payload jsonb)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
declare
  overflow_id bigint;
begin
  payload := payload || jsonb_build_object('at', clock_timestamp());
  if octet_length(payload::text) < 7900 then
    perform pg_notify(channel, payload::text);
    return;
  end if;
  delete from realtime_overflow where created_at < now() - interval '10 minutes';
  insert into realtime_overflow (payload) values (payload) returning id into overflow_id;
  perform pg_notify(channel, jsonb_build_object('overflow', overflow_id)::text);
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_reprioritise_queued_jobs()
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
declare
  v_live boolean;
  v_group record;
  v_count integer := 0;
  v_moved bigint[];
begin
  select exists (select 1 from live_rooms where ended_at is null) into v_live;
  for v_group in
    select coalesce(r.base_priority, 0) + case when v_live then coalesce(r.livekit_priority_adj, 0) else 0 end as priority,
           array_agg(q.worker_job_id) as job_ids
      from job_queue q left join job_priority_rules r on r.job_type = q.job_type
     where q.status = 'queued' and q.worker_job_id is not null
     group by 1
  loop
    select array_agg(j.id) into v_moved from graphile_worker.reschedule_jobs(v_group.job_ids, priority => v_group.priority) j;
    if v_moved is not null then
      update job_queue set priority = v_group.priority, updated_at = now()
        where worker_job_id = any (v_moved) and priority <> v_group.priority;
      v_count := v_count + cardinality(v_moved);
    end if;
  end loop;
  return v_count;
end;
$function$
;
CREATE OR REPLACE FUNCTION public.inntak_schedule_job(p_id bigint, p_run_at timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS bigint
 LANGUAGE plpgsql
AS $function$
declare
  v_row job_queue;
  v_rule job_priority_rules;
  v_live boolean;
  v_priority integer;
  -- record, not graphile_worker._private_jobs: that schema is installed after this file runs.
  v_job record;
begin
  select * into strict v_row from job_queue where id = p_id;
  select * into v_rule from job_priority_rules where job_type = v_row.job_type;
  select exists (select 1 from live_rooms where ended_at is null) into v_live;
  v_priority := coalesce(v_rule.base_priority, 0)
    + case when v_live then coalesce(v_rule.livekit_priority_adj, 0) else 0 end;
  perform graphile_worker.remove_job('inntak:' || p_id);
  select * into v_job from graphile_worker.add_job(
    v_row.job_type, v_row.payload::json,
    run_at => coalesce(p_run_at, now()), max_attempts => v_row.max_attempts,
    job_key => 'inntak:' || p_id, priority => v_priority, flags => array[v_row.job_type]);
  update job_queue
    set status = 'queued', worker_job_id = v_job.id, priority = v_priority, run_at = v_job.run_at,
        worker_id = null, worker_process = null, updated_at = now()
    where id = p_id;
  return v_job.id;
end;
$function$
;
CREATE OR REPLACE FUNCTION public.inntak_search_estimate(terms tsquery, OUT documents double precision, OUT titles double precision, OUT total double precision)
 RETURNS record
 LANGUAGE plpgsql
AS $function$
declare
  plan json;
begin
  select greatest(c.reltuples, 1) into total from pg_class c where c.oid = 'node_search'::regclass;
  execute 'explain (format json) select 1 from node_search where document @@ $1' using terms into plan;
  documents := (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
  execute 'explain (format json) select 1 from node_search where title_document @@ $1' using terms into plan;
  titles := (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
end $function$
;
CREATE OR REPLACE FUNCTION public.inntak_sees_edge(p_reader uuid, p_edge edges)
 RETURNS boolean
 LANGUAGE sql
 STABLE
AS $function$
  select exists (
    select 1 from nodes ep
    where ep.id in (p_edge.source_id, p_edge.target_id)
      and (ep.created_by = p_reader
           or exists (select 1 from node_access a where a.object_id = ep.id and a.subject_id = p_reader)
           or (not p_edge.system and ep.visibility <> 'hidden')))
$function$
;
CREATE OR REPLACE FUNCTION public.inntak_try_propagate_belongs_to(edge uuid)
 RETURNS text
 LANGUAGE plpgsql
AS $function$
begin
  perform inntak_propagate_belongs_to(edge);
  return null;
exception when others then
  return sqlerrm;
end
$function$
;
CREATE OR REPLACE FUNCTION public.node_search_document(title text, content text)
 RETURNS tsvector
 LANGUAGE sql
 IMMUTABLE PARALLEL SAFE
RETURN (setweight(to_tsvector('simple'::regconfig, COALESCE(title, ''::text)), 'A'::"char") || setweight(to_tsvector('simple'::regconfig, COALESCE(content, ''::text)), 'B'::"char"))
;
CREATE OR REPLACE FUNCTION public.node_search_insert()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  insert into node_search (node_id, document, title_document, visibility, created_by, readers)
  select n.id, d.title_document || setweight(to_tsvector('simple'::regconfig, coalesce(n.content, '')), 'B'),
         d.title_document, n.visibility, n.created_by, inntak_node_readers(n.id)
    from nodes n, lateral (select setweight(to_tsvector('simple'::regconfig, coalesce(n.title, '')), 'A') as title_document) d
   where n.id = new.id
  on conflict (node_id) do nothing;
  return null;
end $function$
;
CREATE OR REPLACE FUNCTION public.node_search_update()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
begin
  update node_search
     set document = node_search_document(new.title, new.content),
         title_document = setweight(to_tsvector('simple'::regconfig, coalesce(new.title, '')), 'A')
   where node_id = new.id;
  return null;
end $function$
;

-- triggers
CREATE TRIGGER edges_notify_delete BEFORE DELETE ON public.edges FOR EACH ROW EXECUTE FUNCTION inntak_notify_change('inntak_edges');
CREATE TRIGGER edges_notify_write AFTER INSERT OR UPDATE ON public.edges FOR EACH ROW WHEN ((current_setting('inntak.notices_after_commit'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION inntak_notify_write('inntak_edges');
CREATE CONSTRAINT TRIGGER edges_orchestration_match AFTER INSERT ON public.edges DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION inntak_orchestration_on_write();
CREATE TRIGGER edges_orchestration_subscriptions_delete AFTER DELETE ON public.edges FOR EACH ROW WHEN ((old.edge_type = 'observes'::text)) EXECUTE FUNCTION inntak_orchestration_subscriptions_on_edge();
CREATE TRIGGER edges_orchestration_subscriptions_insert AFTER INSERT ON public.edges FOR EACH ROW WHEN ((new.edge_type = 'observes'::text)) EXECUTE FUNCTION inntak_orchestration_subscriptions_on_edge();
CREATE TRIGGER edges_orchestration_subscriptions_update AFTER UPDATE OF source_id, target_id, edge_type ON public.edges FOR EACH ROW WHEN (((new.edge_type = 'observes'::text) OR (old.edge_type = 'observes'::text))) EXECUTE FUNCTION inntak_orchestration_subscriptions_on_edge();
CREATE TRIGGER mixer_channels_notify AFTER INSERT OR UPDATE ON public.mixer_channels FOR EACH ROW EXECUTE FUNCTION inntak_notify_mixer_change();
CREATE TRIGGER node_access_inserted AFTER INSERT ON public.node_access REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION inntak_node_access_inserted();
CREATE TRIGGER node_access_notify_delete BEFORE DELETE ON public.node_access FOR EACH ROW EXECUTE FUNCTION inntak_notify_change('inntak_access');
CREATE TRIGGER node_access_notify_update AFTER UPDATE ON public.node_access FOR EACH ROW WHEN ((current_setting('inntak.notices_after_commit'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION inntak_notify_write('inntak_access');
CREATE TRIGGER node_access_search_delete AFTER DELETE ON public.node_access REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION inntak_node_search_access();
CREATE TRIGGER node_access_search_update AFTER UPDATE OF subject_id, object_id ON public.node_access FOR EACH ROW EXECUTE FUNCTION inntak_node_search_access_moved();
CREATE TRIGGER nodes_notify_delete BEFORE DELETE ON public.nodes FOR EACH ROW EXECUTE FUNCTION inntak_notify_change('inntak_nodes');
CREATE TRIGGER nodes_notify_write AFTER INSERT OR UPDATE ON public.nodes FOR EACH ROW WHEN ((current_setting('inntak.notices_after_commit'::text, true) IS DISTINCT FROM 'on'::text)) EXECUTE FUNCTION inntak_notify_write('inntak_nodes');
CREATE CONSTRAINT TRIGGER nodes_orchestration_match AFTER INSERT ON public.nodes DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION inntak_orchestration_on_write();
CREATE CONSTRAINT TRIGGER nodes_orchestration_match_update AFTER UPDATE OF title, content, visibility, node_kind, metadata ON public.nodes DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION inntak_orchestration_on_update();
CREATE TRIGGER nodes_orchestration_subscriptions_insert AFTER INSERT ON public.nodes FOR EACH ROW WHEN ((new.node_kind = 'orchestration'::text)) EXECUTE FUNCTION inntak_orchestration_subscriptions_on_node();
CREATE TRIGGER nodes_orchestration_subscriptions_update AFTER UPDATE OF node_kind, metadata, created_by ON public.nodes FOR EACH ROW WHEN (((new.node_kind = 'orchestration'::text) OR (old.node_kind = 'orchestration'::text))) EXECUTE FUNCTION inntak_orchestration_subscriptions_on_node();
CREATE CONSTRAINT TRIGGER nodes_search_insert AFTER INSERT ON public.nodes DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION node_search_insert();
CREATE TRIGGER nodes_search_reader AFTER UPDATE OF visibility, created_by ON public.nodes FOR EACH ROW WHEN (((old.visibility IS DISTINCT FROM new.visibility) OR (old.created_by IS DISTINCT FROM new.created_by))) EXECUTE FUNCTION inntak_node_search_reader();
CREATE TRIGGER nodes_search_update AFTER UPDATE OF title, content ON public.nodes FOR EACH ROW EXECUTE FUNCTION node_search_update();
CREATE TRIGGER webhook_previous_tokens_notify AFTER INSERT OR DELETE OR UPDATE OF grace_until ON public.webhook_previous_tokens FOR EACH ROW EXECUTE FUNCTION inntak_notify_webhook_grace();
CREATE TRIGGER webhook_secrets_notify AFTER INSERT OR DELETE OR UPDATE ON public.webhook_secrets FOR EACH ROW EXECUTE FUNCTION inntak_notify_webhook_secret();
