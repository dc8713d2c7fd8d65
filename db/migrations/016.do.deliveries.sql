-- Deliveries (docs/deliveries.md): every request to /api/webhook/{token} whose token matches a
-- webhook, with what became of it. No body (the content node holds the payload), no token, no
-- signature headers. The id is a UUIDv7 made when the request arrived, so newest-first paging
-- is by id alone. No foreign keys: a row outlives its content node (which may be deleted) and
-- would otherwise lock the webhook's row on every intake; delete_webhook removes a webhook's
-- rows, and the worker prunes them (30 days, 10,000 per webhook).
create table webhook_deliveries (
  id uuid primary key,
  webhook_id uuid not null,
  received_at timestamptz not null default now(),
  status smallint not null,
  error text,
  node_id uuid,
  edge_id uuid,
  delivery_id text,
  event text,
  duplicate boolean not null default false,
  bytes bigint not null default 0,
  duration_ms integer not null default 0
);
create index webhook_deliveries_webhook_idx on webhook_deliveries (webhook_id, id desc);

-- The senders' delivery ids seen in the last 24 hours, one row per (webhook, id): the primary
-- key is what makes two racing copies of one delivery store one node. A row older than 24 hours
-- is taken over by the next delivery with that id (which is stored anew) and pruned by the worker.
create table webhook_delivery_ids (
  webhook_id uuid not null,
  delivery_id text not null,
  node_id uuid not null,
  edge_id uuid not null,
  claimed_at timestamptz not null default now(),
  primary key (webhook_id, delivery_id)
);

-- A webhook's signing secret (docs/deliveries.md#signatures): a table of its own, never in the
-- webhook node's metadata, so no node read, listing or change stream can carry it.
create table webhook_secrets (
  webhook_id uuid primary key references nodes (id) on delete cascade,
  scheme text not null check (scheme in ('github', 'gitlab', 'gitea', 'slack', 'standard-webhooks')),
  secret text not null check (secret <> ''),
  updated_at timestamptz not null default now()
);

-- The intake's write (008) gains the delivery: still one call, one transaction. With a sender's
-- delivery id, the id is claimed first; a claim held by an earlier delivery of the last 24 hours
-- makes this one a duplicate: nothing is stored but its log row, and the original node and edge
-- are returned. A racing copy waits on the first one's uncommitted claim and then sees it.
drop function inntak_intake_write(uuid, text, text, text, visibility, jsonb, uuid, uuid, uuid, uuid, text, jsonb, boolean, uuid);
create function inntak_intake_write(
  node_id uuid, node_kind text, node_title text, node_content text, node_visibility visibility,
  node_metadata jsonb, node_created_by uuid,
  edge_id uuid, edge_source_id uuid, edge_target_id uuid, edge_type text, edge_metadata jsonb,
  edge_system boolean, edge_created_by uuid,
  log_id uuid, log_webhook_id uuid, log_received_at timestamptz, log_delivery_id text, log_event text,
  log_bytes bigint, log_duration_ms integer
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
      insert into webhook_deliveries (id, webhook_id, received_at, status, node_id, edge_id, delivery_id, event, duplicate, bytes, duration_ms)
      values (log_id, log_webhook_id, log_received_at, 200, original.node_id, original.edge_id,
              log_delivery_id, log_event, true, log_bytes, log_duration_ms);
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
  insert into webhook_deliveries (id, webhook_id, received_at, status, node_id, edge_id, delivery_id, event, bytes, duration_ms)
  values (log_id, log_webhook_id, log_received_at, 200, node_id, edge_id,
          log_delivery_id, log_event, log_bytes, log_duration_ms);
  return query select failure, null::uuid, null::uuid;
end
$$;
