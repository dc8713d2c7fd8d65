-- Jobs: the priority rules the resource governor enforces, a history of every job (graphile-worker
-- deletes completed jobs), the worker processes that run them, live rooms, and the disk and
-- resource logs. graphile-worker's own schema is installed by its migrator, after this file.

-- One rule per job type. Priority follows graphile-worker: numerically smaller runs first, so
-- livekit_priority_adj > 0 ranks a type later while a live room is active.
create table job_priority_rules (
  job_type text primary key,
  base_priority integer not null default 0,
  cpu_weight integer not null default 1 check (cpu_weight >= 0),
  max_concurrent integer not null default 3 check (max_concurrent >= 0),
  livekit_priority_adj integer not null default 0,
  block_during_livekit boolean not null default false,
  timeout_seconds integer not null default 600 check (timeout_seconds > 0),
  updated_at timestamptz not null default now()
);

insert into job_priority_rules
  (job_type, base_priority, cpu_weight, max_concurrent, livekit_priority_adj, block_during_livekit, timeout_seconds)
values
  ('access_repair', -10, 1, 2, 0, false, 600),
  ('orchestrate', 0, 1, 3, 0, false, 600),
  ('tts_generate', 5, 2, 2, 10, false, 600),
  ('speech_transcription', 10, 5, 1, 20, true, 1800),
  ('rendering', 10, 1, 2, 20, true, 1200);

-- The history: one row per job, from queued to completed / failed / cancelled. worker_job_id
-- links it to graphile-worker's job while that exists (the job's key is 'inntak:' || id).
create table job_queue (
  id bigint generated always as identity primary key,
  job_type text not null,
  payload jsonb not null default '{}',
  status text not null default 'queued'
    check (status in ('queued', 'running', 'completed', 'failed', 'cancelled')),
  priority integer not null default 0,
  attempts integer not null default 0,
  max_attempts integer not null default 25,
  last_error text,
  worker_job_id bigint,
  worker_id text,
  worker_process text,
  -- The weight the governor admitted the job with; a later rule change does not alter it.
  cpu_weight integer not null default 0,
  cancel_requested_at timestamptz,
  run_at timestamptz not null default now(),
  queued_at timestamptz not null default now(),
  started_at timestamptz,
  finished_at timestamptz,
  updated_at timestamptz not null default now()
);
create unique index job_queue_worker_job_idx on job_queue (worker_job_id) where worker_job_id is not null;
-- The governor reads the running set on every fetch.
create index job_queue_running_idx on job_queue (job_type) where status = 'running';
create index job_queue_listing_idx on job_queue (status, job_type, id desc);
create index job_queue_type_idx on job_queue (job_type, id desc);

-- Worker processes and their graphile-worker worker ids. A process that stops heartbeating is
-- dead (kill -9, lost host): its jobs are unlocked and their history rows set back to queued.
create table job_workers (
  worker_id text primary key,
  process_id text not null,
  hostname text not null,
  pid integer not null,
  started_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now()
);
create index job_workers_process_idx on job_workers (process_id);

-- Live-room sessions; a session is active while ended_at is null.
create table live_rooms (
  room_id text primary key,
  started_at timestamptz not null default now(),
  ended_at timestamptz
);
create index live_rooms_active_idx on live_rooms (room_id) where ended_at is null;

-- Disk status log: one row per measurement of the storage filesystem, last 1000 kept.
create table disk_status_log (
  id bigint generated always as identity primary key,
  measured_at timestamptz not null default now(),
  path text not null,
  total_bytes bigint not null,
  free_bytes bigint not null,
  used_percent numeric(5, 2) not null,
  level text not null check (level in ('ok', 'warning', 'critical', 'emergency'))
);

-- Resource usage log: the worker host's CPU, memory and the running set, per disk check.
create table resource_usage_log (
  id bigint generated always as identity primary key,
  measured_at timestamptz not null default now(),
  worker_process text not null,
  load_average_1m numeric(8, 2) not null,
  cpu_count integer not null,
  memory_total_bytes bigint not null,
  memory_free_bytes bigint not null,
  process_rss_bytes bigint not null,
  running_jobs integer not null,
  running_weight integer not null
);

-- (Re)submits a history row's job to graphile-worker: the type's rule gives the priority (live
-- rooms rank it later), the job carries its type as its flag for the governor, and the key
-- 'inntak:' || id replaces any earlier graphile-worker job of the row (a deferred or failed one).
create function inntak_schedule_job(p_id bigint, p_run_at timestamptz default null) returns bigint as $$
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
$$ language plpgsql volatile;

-- The governor hands a fetched job back: queued again a little later, and the attempt that the
-- fetch counted is given back (graphile-worker and the history agree on attempts).
create function inntak_defer_job(p_id bigint, p_delay interval, p_attempts integer) returns void as $$
declare
  v_job_id bigint;
begin
  v_job_id := inntak_schedule_job(p_id, now() + p_delay);
  perform graphile_worker.reschedule_jobs(array[v_job_id], attempts => p_attempts);
  update job_queue set attempts = p_attempts where id = p_id;
end;
$$ language plpgsql volatile;

-- The one way to queue a job, from SQL or TS, in the caller's transaction. Returns the history id.
create function inntak_enqueue_job(
  p_job_type text,
  p_payload jsonb,
  p_max_attempts integer default null,
  p_run_at timestamptz default null
) returns bigint as $$
declare
  v_id bigint;
begin
  insert into job_queue (job_type, payload, max_attempts)
    values (p_job_type, coalesce(p_payload, '{}'), coalesce(p_max_attempts, 25))
    returning id into v_id;
  perform inntak_schedule_job(v_id, p_run_at);
  return v_id;
end;
$$ language plpgsql volatile;
