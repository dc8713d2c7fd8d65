-- The delivery inspector (issue 39, docs/deliveries.md#inspector): what a sender sent can be
-- read back. An accepted delivery keeps its request headers (secrets and signatures masked by
-- the intake before they reach SQL; the token is in the URL, which is never stored) beside its
-- log row; its body is the content node's payload, so it is not stored twice. A replay (a
-- stored delivery rendered again through the current template, a new node) names the log row
-- it replays. Small: a webhook request has some 10–20 headers, capped at 8 KiB by the intake.
alter table webhook_deliveries
  add column headers jsonb not null default '{}',
  add column replay_of uuid;

-- Refused requests kept whole: headers (masked), the body as read (up to 64 KiB, marked
-- truncated beyond; null when the request was refused before its body was read) and the exact
-- reason (a missing signature and a wrong one are different rows). Only the first 20 of a
-- minute per webhook are kept whole; the rest are only counted in webhook_refusals, so a flood
-- still adds a handful of rows a minute. Kept 7 days (the worker's prune_deliveries). No
-- foreign keys, like the log: delete_webhook removes the rows.
create table webhook_refused_requests (
  id uuid primary key,
  webhook_id uuid not null,
  received_at timestamptz not null,
  status smallint not null,
  error text not null,
  delivery_id text,
  event text,
  bytes bigint not null default 0,
  duration_ms integer not null default 0,
  headers jsonb not null default '{}',
  body text,
  body_truncated boolean not null default false
);
create index webhook_refused_requests_webhook_idx on webhook_refused_requests (webhook_id, id desc);
create index webhook_refused_requests_received_idx on webhook_refused_requests (received_at);

-- How many of a counted row's requests were kept whole in webhook_refused_requests: the
-- inspector shows the rest (count - kept) as one counted line.
alter table webhook_refusals add column kept integer not null default 0;

-- A refusal: counted in its minute's row as before (migration 018) and, while fewer than
-- p_keep of this webhook's minute were kept, kept whole. The minute's kept total is read from
-- the counted rows' primary key (webhook, minute): two racing refusals may both be kept, so
-- the bound is p_keep plus what races in, never unbounded.
create function inntak_intake_refuse(p_id uuid, p_webhook_id uuid, p_received_at timestamptz, p_status smallint,
  p_error text, p_delivery_id text, p_event text, p_bytes bigint, p_duration_ms integer, p_reason text,
  p_headers jsonb, p_body text, p_body_truncated boolean, p_keep integer)
returns boolean language plpgsql as $$
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
end $$;

-- The intake's write (016, 031) with the request's masked headers in its log row: still one
-- call, one statement. The 21-argument forms stay for an API of the version before, without
-- headers.
create function inntak_intake_write(
  node_id uuid, node_kind text, node_title text, node_content text, node_visibility visibility,
  node_metadata jsonb, node_created_by uuid,
  edge_id uuid, edge_source_id uuid, edge_target_id uuid, edge_type text, edge_metadata jsonb,
  edge_system boolean, edge_created_by uuid,
  log_id uuid, log_webhook_id uuid, log_received_at timestamptz, log_delivery_id text, log_event text,
  log_bytes bigint, log_duration_ms integer, log_headers jsonb
) returns table (propagation_error text, duplicate_node_id uuid, duplicate_edge_id uuid)
language plpgsql as $$
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
$$;

create function inntak_intake_write_quiet(node_id uuid, node_kind text, node_title text, node_content text,
  node_visibility visibility, node_metadata jsonb, node_created_by uuid, edge_id uuid, edge_source_id uuid,
  edge_target_id uuid, edge_type text, edge_metadata jsonb, edge_system boolean, edge_created_by uuid,
  log_id uuid, log_webhook_id uuid, log_received_at timestamptz, log_delivery_id text, log_event text,
  log_bytes bigint, log_duration_ms integer, log_headers jsonb)
returns table (propagation_error text, duplicate_node_id uuid, duplicate_edge_id uuid) language plpgsql as $$
begin
  perform set_config('inntak.notices_after_commit', 'on', true);
  return query select * from inntak_intake_write($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
                                                 $15, $16, $17, $18, $19, $20, $21, $22);
end $$;

-- The previous forms, kept for an API of the version before (no headers).
create or replace function inntak_intake_write(
  node_id uuid, node_kind text, node_title text, node_content text, node_visibility visibility,
  node_metadata jsonb, node_created_by uuid,
  edge_id uuid, edge_source_id uuid, edge_target_id uuid, edge_type text, edge_metadata jsonb,
  edge_system boolean, edge_created_by uuid,
  log_id uuid, log_webhook_id uuid, log_received_at timestamptz, log_delivery_id text, log_event text,
  log_bytes bigint, log_duration_ms integer
) returns table (propagation_error text, duplicate_node_id uuid, duplicate_edge_id uuid)
language plpgsql as $$
begin
  return query select * from inntak_intake_write($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
                                                 $15, $16, $17, $18, $19, $20, $21, null::jsonb);
end $$;
