-- Mixdown, uploads and transcription (docs/media.md, issue 28).

-- A channel's source may start later than the mix: its offset in milliseconds (at most an hour).
alter table mixer_channels
  add column offset_ms integer not null default 0 check (offset_ms between 0 and 3600000);

-- Effects were free-form booleans ({ "name": true }) that nothing played. They are now the
-- mixdown's effects with parameters ({ "compressor": { "enabled": true, "ratio": 4, ... } });
-- known names keep their on/off state (parameters take their defaults when read), unknown names
-- never did anything and are dropped.
update mixer_channels
   set effects = coalesce(
         (select jsonb_object_agg(key, jsonb_build_object('enabled', value))
            from jsonb_each(effects)
           where key in ('high_pass', 'compressor', 'gain_ramp', 'fade') and jsonb_typeof(value) = 'boolean'),
         '{}')
 where exists (select 1 from jsonb_each(effects) where jsonb_typeof(value) = 'boolean');

-- render_mix is CPU-heavy (decode, filter, resample every channel) but nobody listens to it live:
-- one at a time, and behind other work while a room is live. speech_transcription has had its
-- rule since 003.
insert into job_priority_rules
  (job_type, base_priority, cpu_weight, max_concurrent, livekit_priority_adj, block_during_livekit, timeout_seconds)
values ('render_mix', 5, 3, 1, 20, false, 1800)
on conflict (job_type) do nothing;

-- What a speech_transcription job heard in an audio media node, one row per segment in time
-- order; it goes with the node.
create table transcription_segments (
  media_id uuid not null references nodes (id) on delete cascade,
  seq integer not null check (seq >= 0),
  start_s double precision not null check (start_s >= 0),
  end_s double precision not null check (end_s >= start_s),
  text text not null,
  primary key (media_id, seq)
);
