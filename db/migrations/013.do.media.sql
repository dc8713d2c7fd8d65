-- Media, pruning and the mixer (docs/media.md).

-- Media nodes are found by kind for pruning, and by their owner through the has_media edge
-- (edges_target_type_idx). Files are named by node id, so nothing else needs an index.

-- Every pruning run, dry or not: what was deleted, why, and the bytes freed. The latest is shown
-- in GET /admin/resources; the last 1000 are kept.
create table prune_runs (
  id bigint generated always as identity primary key,
  started_at timestamptz not null default now(),
  finished_at timestamptz not null default now(),
  mode text not null check (mode in ('run', 'dry_run')),
  trigger text not null,
  disk_percent numeric(5, 2) not null,
  deleted jsonb not null default '[]',
  freed_bytes bigint not null default 0,
  swept jsonb not null default '[]'
);
create index prune_runs_started_idx on prune_runs (started_at desc);

-- Mixer channels of a live room. The room is a node (its access decides who may change what);
-- a channel may name the node it carries (a person, a media node). One row per channel, each
-- change a single UPDATE, so concurrent editors serialise on the row and the last write wins.
create table mixer_channels (
  id uuid primary key,
  room_id uuid not null references nodes (id) on delete cascade,
  node_id uuid references nodes (id) on delete set null,
  label text not null check (char_length(label) between 1 and 200),
  gain_db double precision not null default 0 check (gain_db between -60 and 12),
  muted boolean not null default false,
  effects jsonb not null default '{}' check (jsonb_typeof(effects) = 'object'),
  role text not null default 'guest',
  created_by uuid references nodes (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index mixer_channels_room_idx on mixer_channels (room_id, created_at);

-- A channel change is announced on its own channel, in commit order; the realtime hub reads the
-- row and the room's audience facts, and sends mixer_channel_changed with the full channel.
create function inntak_notify_mixer_change() returns trigger
language plpgsql as $$
begin
  perform inntak_realtime_notify('inntak_mixer', jsonb_build_object('op', lower(tg_op), 'id', new.id));
  return null;
end $$;

create trigger mixer_channels_notify after insert or update on mixer_channels
  for each row execute function inntak_notify_mixer_change();

-- A live session starting or ending changes the priority of every queued job whose rule has a
-- livekit_priority_adj (inntak_schedule_job applies it to jobs queued from now on). Jobs a worker
-- has already locked keep theirs: graphile-worker's reschedule_jobs skips them.
create function inntak_reprioritise_queued_jobs() returns integer as $$
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
$$ language plpgsql volatile;
