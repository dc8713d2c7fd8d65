-- A group commit's batch of intakes written set-wise (issue 40). The API wrote a batch as one
-- statement calling inntak_intake_write_quiet once per row (037), so a batch of 16 still ran
-- 16 × its statements: the claim, node, edge, access rows, log row, each planned and run alone,
-- and each statement trigger (the search document, the readers of new access rows) once per
-- row. Measured, about 0.6 ms of database CPU per row in a batch of 16 against 0.85 ms one by
-- one. This function does the same work as one call of inntak_intake_write_quiet per row, in
-- order, with one statement per table for the whole batch.
--
-- The arguments are the 23 of inntak_intake_write_quiet (037), each an array with one element
-- per write; it returns one row per write, in their order. What stays the same per row:
--   * the duplicate claim: a delivery id claimed in the last 24 hours writes only its log row
--     (duplicate, with the first copy's node and edge) and answers with them. Copies of one
--     delivery id inside the batch: the first claims it, the others are its duplicates, as they
--     would be written one after the other (ON CONFLICT cannot touch one row twice, so only the
--     first of each id is offered to the claim).
--   * the access rows: a propagation failure does not fail the intake. The batch's rows are
--     written in one statement; if it fails, each write's propagation is done again alone
--     (inntak_try_propagate_belongs_to), so exactly the writes that fail alone get the error
--     and an access_repair job for their edge, as N calls would give.
--   * the log row, with headers and the previous token's mark, and that token's hits counted.
--   * the notices are left to the caller (inntak.notices_after_commit, 031).
-- Any other failure (a webhook or collection deleted since the lookup: a foreign key; a node id
-- that exists) fails the whole statement, and the API's group commit writes the batch again one
-- by one, which gives each write its own answer. The node and edge inserts are therefore not
-- wrapped to name their table (037's exception blocks, one subtransaction each): a batch's
-- error does not say which write it was anyway.
--
-- The per-row forms (031, 036, 037) stay for an API of the version before during a rollout.
create function inntak_intake_write_batch(
  p_node_id uuid[], p_node_kind text[], p_node_title text[], p_node_content text[], p_node_visibility visibility[],
  p_node_metadata jsonb[], p_node_created_by uuid[],
  p_edge_id uuid[], p_edge_source_id uuid[], p_edge_target_id uuid[], p_edge_type text[], p_edge_metadata jsonb[],
  p_edge_system boolean[], p_edge_created_by uuid[],
  p_log_id uuid[], p_log_webhook_id uuid[], p_log_received_at timestamptz[], p_log_delivery_id text[], p_log_event text[],
  p_log_bytes bigint[], p_log_duration_ms integer[], p_log_headers jsonb[], p_log_previous_token text[])
returns table (propagation_error text, duplicate_node_id uuid, duplicate_edge_id uuid)
language plpgsql as $$
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
end $$;
