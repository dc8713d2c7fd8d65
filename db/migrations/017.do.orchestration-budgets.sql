-- Issue 22, findings 7 and 8 (docs/orchestration.md, docs/security.md "Orchestration budgets"):
-- matching costs what it matches, not the number of orchestrations, and one root event's cascade
-- does at most a budget of actions.

-- Finding 8: every write used to test every orchestration listening for its event (10,000 of a
-- stranger's made intake 17x slower; a bulk insert of them was quadratic). Each orchestration is
-- indexed here by what a match needs: its event, the node it observes (the nil UUID when it
-- observes nothing), one of its conditions as a key (a match must meet every condition, so any
-- one will do), and its creator (an unscoped orchestration only matches what its creator reads).
-- Maintained by the triggers below; matching probes it and then applies the exact rules of
-- 011 to the few candidates.
create table orchestration_subscriptions (
  orchestration_id uuid not null references nodes (id) on delete cascade,
  event text not null,
  scope uuid not null,
  -- 'has_tag:<tag>', 'has_trait:<trait>', 'node_kind:<kind>', 'edge_type:<type>', or '' (no condition).
  selector text not null,
  creator uuid not null,
  -- A condition looks into the node (for edge.created: the source), which the creator must read in full.
  needs_source boolean not null,
  -- The keys matching looks up, one column each so a lookup of many keys is always one index
  -- scan: 'o|event|observed|selector' when it observes, 'c|event|creator|selector' when not;
  -- any_probe 'event|selector' (when not) for events everyone may read.
  probe text not null,
  any_probe text,
  primary key (orchestration_id, scope)
);
create index orchestration_subscriptions_probe_idx on orchestration_subscriptions (probe);
create index orchestration_subscriptions_any_probe_idx on orchestration_subscriptions (any_probe) where any_probe is not null;

create function inntak_orchestration_nil() returns uuid language sql immutable
  return '00000000-0000-0000-0000-000000000000'::uuid;

-- The one condition an orchestration is found by: the rarest kind first.
create function inntak_orchestration_selector(p_conditions jsonb) returns text
language sql immutable as $$
  select case
    when jsonb_typeof(p_conditions) is distinct from 'object' then ''
    when p_conditions ->> 'has_tag' is not null then 'has_tag:' || (p_conditions ->> 'has_tag')
    when p_conditions ->> 'has_trait' is not null then 'has_trait:' || (p_conditions ->> 'has_trait')
    when p_conditions ->> 'node_kind' is not null then 'node_kind:' || (p_conditions ->> 'node_kind')
    when p_conditions ->> 'edge_type' is not null then 'edge_type:' || (p_conditions ->> 'edge_type')
    else ''
  end
$$;

-- The keys a node meets (for edge.created, the edge's source; the edge type is added there): every
-- selector of an orchestration whose conditions may hold for it.
create function inntak_orchestration_node_keys(p_node nodes) returns text[]
language sql stable as $$
  select array['', 'node_kind:' || p_node.node_kind]
    || array(select 'has_trait:' || (x.v #>> '{}')
             from jsonb_array_elements(case when jsonb_typeof(p_node.metadata -> 'traits') = 'array' then p_node.metadata -> 'traits' else '[]'::jsonb end) as x(v)
             where jsonb_typeof(x.v) = 'string')
    || array(select 'has_tag:' || (t.metadata ->> 'tag')
             from edges e join nodes t on t.id = e.target_id
             where e.source_id = p_node.id and e.edge_type = 'tagged' and t.node_kind = 'tag' and t.metadata ->> 'tag' is not null)
$$;

-- Rewrites one orchestration's rows from the node and its observes edges (none when it is no
-- orchestration, has no creator or no trigger event).
-- plpgsql, not sql: its plans are kept between calls (a bulk insert calls it once a row).
create function inntak_orchestration_subscribe(p_orchestration uuid) returns void
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
      and o.metadata -> 'trigger' ->> 'event' is not null
  ) subscription
  on conflict do nothing;
end $$;

create function inntak_orchestration_subscriptions_on_node() returns trigger
language plpgsql as $$
begin
  perform inntak_orchestration_subscribe(new.id);
  return null;
end $$;

create function inntak_orchestration_subscriptions_on_edge() returns trigger
language plpgsql as $$
begin
  if tg_op in ('INSERT', 'UPDATE') and new.edge_type = 'observes' then
    perform inntak_orchestration_subscribe(new.source_id);
  end if;
  if tg_op in ('DELETE', 'UPDATE') and old.edge_type = 'observes' and (tg_op = 'DELETE' or old.source_id is distinct from new.source_id or new.edge_type <> 'observes') then
    perform inntak_orchestration_subscribe(old.source_id);
  end if;
  return null;
end $$;

-- Immediate (not deferred): the matching trigger at commit sees the transaction's orchestrations.
create trigger nodes_orchestration_subscriptions_insert after insert on nodes
  for each row when (new.node_kind = 'orchestration') execute function inntak_orchestration_subscriptions_on_node();
create trigger nodes_orchestration_subscriptions_update after update of node_kind, metadata, created_by on nodes
  for each row when (new.node_kind = 'orchestration' or old.node_kind = 'orchestration') execute function inntak_orchestration_subscriptions_on_node();
create trigger edges_orchestration_subscriptions_insert after insert on edges
  for each row when (new.edge_type = 'observes') execute function inntak_orchestration_subscriptions_on_edge();
create trigger edges_orchestration_subscriptions_delete after delete on edges
  for each row when (old.edge_type = 'observes') execute function inntak_orchestration_subscriptions_on_edge();
create trigger edges_orchestration_subscriptions_update after update of source_id, target_id, edge_type on edges
  for each row when (new.edge_type = 'observes' or old.edge_type = 'observes') execute function inntak_orchestration_subscriptions_on_edge();

-- The orchestrations that exist already.
select inntak_orchestration_subscribe(id) from nodes where node_kind = 'orchestration';

-- 011's rules, unchanged, applied to candidates only.
create function inntak_orchestration_matches(p_event text, p_id uuid, p_candidates uuid[]) returns setof uuid
language sql stable as $$
  select o.id
  from nodes n
  cross join unnest(p_candidates) c(id)
  join nodes o on o.id = c.id and o.node_kind = 'orchestration' and o.metadata -> 'trigger' ->> 'event' = 'node.created'
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

-- The candidates are a superset of the matches: an observed node the event is on or within (any
-- creator: observing takes access already), or no observed node and a creator who may read the
-- event's rows (anyone, when the rows are readable to all). Each is one index scan over keys the
-- event makes (never over orchestrations); seqscan is off so that holds with stale statistics too,
-- as in a bulk insert's commit, where the table has grown since it was last analyzed.
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
  if p_event = 'node.created' then
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
    -- inntak_sees_edge for anyone; node conditions also need the source readable by anyone.
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

-- Finding 7: depth bounds a cascade's length, not its width (three create_node steps into the
-- observed collection made 363 nodes from one write). Each root event (a write that is no
-- orchestration's) gets a budget: every action its cascade's runs take, and every run queued by
-- one of them, spends one. The worker sets the budget (ORCHESTRATION_BUDGET) and the root in each
-- action's transaction, beside the depth; one row per root event that started runs.
create table orchestration_budgets (
  root_id uuid primary key,
  spent integer not null,
  created_at timestamptz not null default now()
);

-- The cascade's root event: the person's write every run in it comes from.
alter table orchestration_runs add column root_id uuid;

-- When a writer sets no budget (not the worker), this one holds.
create function inntak_orchestration_default_budget() returns integer language sql immutable return 100;

-- Spends one of the root's budget; false (nothing spent) when it is used up.
create function inntak_orchestration_spend(p_root uuid, p_budget integer) returns boolean
language plpgsql as $$
begin
  if coalesce(p_budget, inntak_orchestration_default_budget()) < 1 then return false; end if;
  insert into orchestration_budgets as b (root_id, spent) values (p_root, 1)
    on conflict (root_id) do update set spent = b.spent + 1
    where b.spent < coalesce(p_budget, inntak_orchestration_default_budget());
  return found;
end $$;

create or replace function inntak_orchestration_on_write() returns trigger
language plpgsql as $$
declare
  v_event text := case tg_table_name when 'nodes' then 'node.created' else 'edge.created' end;
  v_depth integer;
  v_root uuid;
  v_budget integer;
  v_ref jsonb;
  v_orchestration uuid;
  v_job bigint;
begin
  if not exists (select 1 from nodes where node_kind = 'orchestration' and metadata -> 'trigger' ->> 'event' = v_event) then
    return null;
  end if;
  v_depth := coalesce(nullif(current_setting('inntak.orchestration_depth', true), '')::integer + 1, 0);
  v_root := case when v_depth = 0 then new.id
                 else coalesce(nullif(current_setting('inntak.orchestration_root', true), '')::uuid, new.id) end;
  v_budget := coalesce(nullif(current_setting('inntak.orchestration_budget', true), '')::integer, inntak_orchestration_default_budget());
  v_ref := jsonb_build_object('type', v_event, 'id', new.id, 'depth', v_depth);
  for v_orchestration in select * from inntak_matching_orchestrations(v_event, new.id) loop
    if v_depth >= inntak_orchestration_max_depth() then
      insert into orchestration_log (orchestration_id, status, error, event)
      values (v_orchestration, 'skipped',
              format('Ikke kjørt: dybdegrensen (%s) er nådd; hendelsen kom fra en kjede av %s orkestreringskjøringer', inntak_orchestration_max_depth(), v_depth),
              v_ref);
      continue;
    end if;
    if exists (select 1 from orchestration_runs
               where orchestration_id = v_orchestration and event_type = v_event and subject_id = new.id) then
      continue;
    end if;
    -- The root event's own runs are its writer's; the runs its cascade queues spend the budget.
    if v_depth > 0 and not inntak_orchestration_spend(v_root, v_budget) then
      insert into orchestration_log (orchestration_id, status, error, event)
      values (v_orchestration, 'skipped',
              format('Ikke kjørt: budsjettet på %s handlinger for hendelsen %s er brukt opp', v_budget, v_root),
              v_ref);
      continue;
    end if;
    insert into orchestration_runs (orchestration_id, event_type, subject_id, depth, root_id)
      values (v_orchestration, v_event, new.id, v_depth, v_root)
      on conflict do nothing;
    if found then
      -- One attempt: steps have effects outside the database (http_post), which a retry would repeat.
      v_job := inntak_enqueue_job('orchestrate', jsonb_build_object('orchestration_id', v_orchestration, 'event', v_ref, 'root', v_root), 1);
      update orchestration_runs set job_id = v_job
        where orchestration_id = v_orchestration and event_type = v_event and subject_id = new.id;
    end if;
  end loop;
  return null;
end $$;

-- Finding 8: orchestrations per person are capped where they are created (the API's create_node,
-- `inntak orchestration add`); counting them is an index probe.
create index nodes_orchestration_creator_idx on nodes (created_by) where node_kind = 'orchestration';
