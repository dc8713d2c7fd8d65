-- Issue 27 (docs/orchestration.md): orchestrations people can automate with — disabled ones,
-- runs with a status, node.updated, manual and scheduled runs, and secrets for http_post.

-- A disabled orchestration (metadata.enabled = false) is not indexed: it matches nothing, and
-- matching still costs what matches. Manual and scheduled orchestrations are started by their
-- own operations, never by a write, so they are not indexed either. 017's function otherwise.
create or replace function inntak_orchestration_subscribe(p_orchestration uuid) returns void
language plpgsql as $$
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
end $$;

select inntak_orchestration_subscribe(id) from nodes where node_kind = 'orchestration';

-- Runs get an id of their own (a node is updated many times; a manual or scheduled run has no
-- row to be about), a status and times for listing them, and what a re-run needs: its event,
-- the step that failed and the outputs before it. Created events stay exactly once through the
-- partial unique index (011's primary key).
alter table orchestration_runs drop constraint orchestration_runs_pkey;
alter table orchestration_runs add column id uuid not null default gen_random_uuid() primary key;
-- Listing one orchestration's runs newest first; the worker finds its run by its job.
create index orchestration_runs_list_idx on orchestration_runs (orchestration_id, created_at desc, id);
create index orchestration_runs_job_idx on orchestration_runs (job_id);
alter table orchestration_runs
  add column status text not null default 'queued'
    check (status in ('queued', 'running', 'completed', 'filtered', 'stopped', 'failed', 'skipped')),
  add column started_at timestamptz,
  add column finished_at timestamptz,
  -- The job's event ({type, id, depth, changes?, input?, scheduled_at?}); null for runs queued before 023.
  add column event jsonb,
  add column failed_step integer,
  -- {"1": {...}, "2": {...}}: each finished step's output, so a re-run starts at the failed step.
  add column outputs jsonb not null default '{}',
  add column rerun_of uuid references orchestration_runs (id) on delete set null,
  add column from_step integer not null default 1;
-- A re-run repeats its run's event: only first runs are unique per event.
create unique index orchestration_runs_event_idx on orchestration_runs (orchestration_id, event_type, subject_id)
  where event_type in ('node.created', 'edge.created') and rerun_of is null;

-- node.updated (docs/orchestration.md, "Triggers"): the same matching as node.created, at the
-- commit of the updating transaction, with the keys that changed. Each update is an event of its
-- own (no exactly-once key: the same node is updated again and again). 017's functions with the
-- event generalized.
create or replace function inntak_orchestration_matches(p_event text, p_id uuid, p_candidates uuid[]) returns setof uuid
language sql stable as $$
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
$$;

create or replace function inntak_matching_orchestrations(p_event text, p_id uuid) returns setof uuid
language plpgsql stable set enable_seqscan = off as $$
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
end $$;

-- Queues one run of a matched orchestration, within depth and budget (017's rules), recording
-- its event on the run. Shared by the created and updated triggers.
create function inntak_orchestration_queue(p_orchestration uuid, p_event text, p_subject uuid, p_ref jsonb, p_once boolean) returns void
language plpgsql as $$
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
end $$;

create or replace function inntak_orchestration_on_write() returns trigger
language plpgsql as $$
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
end $$;

-- The keys that changed: title, content, visibility, node_kind, and `metadata.<key>` per
-- top-level metadata key whose value changed; an update that changed none is no event.
create function inntak_orchestration_changes(p_old nodes, p_new nodes) returns text[]
language sql immutable as $$
  select array(select c from (values ('title', p_old.title is distinct from p_new.title),
                                     ('content', p_old.content is distinct from p_new.content),
                                     ('visibility', p_old.visibility is distinct from p_new.visibility),
                                     ('node_kind', p_old.node_kind is distinct from p_new.node_kind)) v(c, changed) where changed)
      || array(select 'metadata.' || k
               from (select jsonb_object_keys(case when jsonb_typeof(p_old.metadata) = 'object' then p_old.metadata else '{}' end) k
                     union select jsonb_object_keys(case when jsonb_typeof(p_new.metadata) = 'object' then p_new.metadata else '{}' end)) ks
               where p_old.metadata -> k is distinct from p_new.metadata -> k
               order by k)
$$;

create function inntak_orchestration_on_update() returns trigger
language plpgsql as $$
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
end $$;

-- Deferred to the commit like the created triggers; only the columns an orchestration can see.
create constraint trigger nodes_orchestration_match_update after update of title, content, visibility, node_kind, metadata on nodes
  deferrable initially deferred for each row execute function inntak_orchestration_on_update();

-- Scheduled orchestrations: when each is next due. The planner (the `orchestration_schedule`
-- crontab task) takes the due rows, queues one run each and sets the next time from now, so
-- runs missed while the service was down are not replayed. Written by the use cases that save
-- an orchestration (cron is parsed in TypeScript, with graphile-worker's matcher).
create table orchestration_schedules (
  orchestration_id uuid primary key references nodes (id) on delete cascade,
  cron text not null,
  next_at timestamptz not null
);
create index orchestration_schedules_due_idx on orchestration_schedules (next_at);

-- Secrets for http_post headers, apart from the script (which its admins and the log's readers
-- see): set by an admin, never answered by any route, `{secrets.NAME}` in a header.
create table orchestration_secrets (
  orchestration_id uuid not null references nodes (id) on delete cascade,
  name text not null check (name ~ '^[A-Za-z_][A-Za-z0-9_]{0,63}$'),
  value text not null,
  set_at timestamptz not null default now(),
  primary key (orchestration_id, name)
);
