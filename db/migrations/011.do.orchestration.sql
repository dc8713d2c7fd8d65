-- Orchestration (docs/orchestration.md): graph events start scripted steps in the worker.
--
-- Matching runs in the database, on the same row changes the realtime stream notifies about,
-- at the commit of the transaction that made them: a deferred constraint trigger on nodes and
-- edges. So a match is queued in that same transaction (a rolled-back write starts nothing), it
-- sees the access rows the write's propagation produced, and it happens exactly once however
-- many API instances listen. The stream's own delivery never waits for it: it reads the
-- notifications after the commit.

-- One row per step, fallback and stop of a run, and per event skipped at the depth limit.
-- Completed jobs are deleted by graphile-worker; their history (job_queue) and this log stay.
create table orchestration_log (
  id bigint generated always as identity primary key,
  orchestration_id uuid not null references nodes (id) on delete cascade,
  job_id bigint references job_queue (id) on delete set null,
  -- 1-based step; for a global fallback and a stop, the step that failed; null for a skip.
  step integer,
  action text,
  fallback text check (fallback in ('step', 'global')),
  status text not null check (status in ('ok', 'failed', 'fallback_ok', 'fallback_failed', 'skipped')),
  output jsonb,
  error text,
  duration_ms integer not null default 0,
  -- The event the run was for: {type, id, depth}.
  event jsonb not null,
  at timestamptz not null default now()
);
-- GET /admin/orchestrations/{id}/log reads one orchestration's rows newest first.
create index orchestration_log_orchestration_idx on orchestration_log (orchestration_id, id desc);
create index orchestration_log_job_idx on orchestration_log (job_id);

-- One row per (orchestration, event) that was queued: the unique key makes a second queueing of
-- the same event a no-op, whoever attempts it.
create table orchestration_runs (
  orchestration_id uuid not null references nodes (id) on delete cascade,
  event_type text not null,
  subject_id uuid not null,
  depth integer not null,
  job_id bigint references job_queue (id) on delete set null,
  created_at timestamptz not null default now(),
  primary key (orchestration_id, event_type, subject_id)
);

-- Every write asks "is any orchestration listening for this event?" first: an index probe.
create index nodes_orchestration_event_idx on nodes ((metadata -> 'trigger' ->> 'event')) where node_kind = 'orchestration';

-- The reader may see the whole node: its creator, an access-matrix row, or a readable/open
-- visibility (docs/access.md; a discoverable summary is not enough to act on).
create function inntak_reads_node(p_reader uuid, p_node nodes) returns boolean
language sql stable as $$
  select p_node.created_by = p_reader
    or p_node.visibility in ('readable', 'open')
    or exists (select 1 from node_access a where a.object_id = p_node.id and a.subject_id = p_reader)
$$;

-- The reader may see the edge: the rule of edgeVisibleTo in packages/postgres/src/graph/read-filter.ts.
create function inntak_sees_edge(p_reader uuid, p_edge edges) returns boolean
language sql stable as $$
  select exists (
    select 1 from nodes ep
    where ep.id in (p_edge.source_id, p_edge.target_id)
      and (ep.created_by = p_reader
           or exists (select 1 from node_access a where a.object_id = ep.id and a.subject_id = p_reader)
           or (not p_edge.system and ep.visibility <> 'hidden')))
$$;

-- The trigger's conditions, all that are given (AND). node_kind, has_trait and has_tag concern
-- the created node, or an edge's source. Tags and traits as docs/graph.md defines them; has_tag
-- is stored normalized.
create function inntak_orchestration_conditions_hold(p_conditions jsonb, p_node nodes, p_edge_type text) returns boolean
language sql stable as $$
  select jsonb_typeof(p_conditions) is distinct from 'object' or (
    (p_conditions ->> 'node_kind' is null or p_conditions ->> 'node_kind' = p_node.node_kind)
    and (p_conditions ->> 'edge_type' is null or p_conditions ->> 'edge_type' = p_edge_type)
    and (p_conditions ->> 'has_trait' is null
         or (jsonb_typeof(p_node.metadata -> 'traits') = 'array' and (p_node.metadata -> 'traits') ? (p_conditions ->> 'has_trait')))
    and (p_conditions ->> 'has_tag' is null or exists (
          select 1 from edges e join nodes t on t.id = e.target_id
          where e.source_id = p_node.id and e.edge_type = 'tagged'
            and t.node_kind = 'tag' and t.metadata ->> 'tag' = p_conditions ->> 'has_tag')))
$$;

-- The orchestrations an event matches. An orchestration with `observes` edges matches only
-- through them (a node created in an observed collection; an edge to or from an observed node),
-- and its conditions must hold too. It never matches events about itself, and only events its
-- creator may read.
create function inntak_matching_orchestrations(p_event text, p_id uuid) returns setof uuid
language sql stable as $$
  select o.id
  from nodes n
  join nodes o on o.node_kind = 'orchestration' and o.metadata -> 'trigger' ->> 'event' = 'node.created'
  where p_event = 'node.created' and n.id = p_id
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
  join nodes o on o.node_kind = 'orchestration' and o.metadata -> 'trigger' ->> 'event' = 'edge.created'
  where p_event = 'edge.created' and e.id = p_id
    and o.id not in (e.source_id, e.target_id) and o.created_by is not null
    and inntak_orchestration_conditions_hold(o.metadata -> 'trigger' -> 'conditions', s, e.edge_type)
    and (not exists (select 1 from edges ob where ob.source_id = o.id and ob.edge_type = 'observes')
         or exists (select 1 from edges ob
                    where ob.source_id = o.id and ob.edge_type = 'observes'
                      and ob.target_id in (e.source_id, e.target_id)))
    and inntak_sees_edge(o.created_by, e)
    -- Node conditions look into the source: only when the creator may read it whole.
    and ((o.metadata -> 'trigger' -> 'conditions' ?| array['node_kind', 'has_trait', 'has_tag']) is not true
         or inntak_reads_node(o.created_by, s))
$$;

-- How deep in orchestration runs an event may be and still start one (MAX_DEPTH in
-- packages/orchestration/src/types.ts). A run sets inntak.orchestration_depth in the transaction
-- of each of its actions; a person's own write has none (depth 0).
create function inntak_orchestration_max_depth() returns integer language sql immutable return 5;

create function inntak_orchestration_on_write() returns trigger
language plpgsql as $$
declare
  v_event text := case tg_table_name when 'nodes' then 'node.created' else 'edge.created' end;
  v_depth integer;
  v_ref jsonb;
  v_orchestration uuid;
  v_job bigint;
begin
  if not exists (select 1 from nodes where node_kind = 'orchestration' and metadata -> 'trigger' ->> 'event' = v_event) then
    return null;
  end if;
  v_depth := coalesce(nullif(current_setting('inntak.orchestration_depth', true), '')::integer + 1, 0);
  v_ref := jsonb_build_object('type', v_event, 'id', new.id, 'depth', v_depth);
  for v_orchestration in select * from inntak_matching_orchestrations(v_event, new.id) loop
    if v_depth >= inntak_orchestration_max_depth() then
      insert into orchestration_log (orchestration_id, status, error, event)
      values (v_orchestration, 'skipped',
              format('Ikke kjørt: dybdegrensen (%s) er nådd; hendelsen kom fra en kjede av %s orkestreringskjøringer', inntak_orchestration_max_depth(), v_depth),
              v_ref);
      continue;
    end if;
    insert into orchestration_runs (orchestration_id, event_type, subject_id, depth)
      values (v_orchestration, v_event, new.id, v_depth)
      on conflict do nothing;
    if found then
      -- One attempt: steps have effects outside the database (http_post), which a retry would repeat.
      v_job := inntak_enqueue_job('orchestrate', jsonb_build_object('orchestration_id', v_orchestration, 'event', v_ref), 1);
      update orchestration_runs set job_id = v_job
        where orchestration_id = v_orchestration and event_type = v_event and subject_id = new.id;
    end if;
  end loop;
  return null;
end $$;

-- Deferred to the commit: by then the write's edges and access rows exist (a node created in a
-- collection gets its belongs_to edge and inherited rows after its insert).
create constraint trigger nodes_orchestration_match after insert on nodes
  deferrable initially deferred for each row execute function inntak_orchestration_on_write();
create constraint trigger edges_orchestration_match after insert on edges
  deferrable initially deferred for each row execute function inntak_orchestration_on_write();
