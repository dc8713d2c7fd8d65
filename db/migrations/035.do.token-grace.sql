-- Safe rotation (issue 39, point 3; docs/deliveries.md#rotation): a rotated webhook token stays
-- accepted for a grace period the administrator chooses (default 24 h, 0: none), every hit on it
-- is counted and marked in the delivery log, and the grace can be ended early.
--
-- A previous token is kept by its SHA-256 only (hex of the lower-cased token, as the intake
-- spool keeps tokens): it is found by its primary key, an index lookup, never a scan, and the
-- token itself cannot be read back from the table. A row outlives its grace so the console can
-- still show its hits; it goes with its webhook.
create table webhook_previous_tokens (
  token_hash text primary key check (token_hash ~ '^[0-9a-f]{64}$'),
  webhook_id uuid not null references nodes (id) on delete cascade,
  rotated_at timestamptz not null default now(),
  grace_until timestamptz not null,
  ended_early boolean not null default false,
  hits bigint not null default 0,
  last_hit_at timestamptz
);
create index webhook_previous_tokens_webhook_idx on webhook_previous_tokens (webhook_id, rotated_at desc);

-- The delivery log says which deliveries came with a previous token.
alter table webhook_deliveries add column previous_token boolean not null default false;
alter table webhook_refusals add column previous_token boolean not null default false;

-- A grace given, ended early or gone is announced on the webhook cache's channel (034), so the
-- intake spool's copy of the webhook's tokens follows at once. Counting a hit changes no grace
-- and announces nothing.
create function inntak_notify_webhook_grace() returns trigger language plpgsql as $$
begin
  perform inntak_realtime_notify('inntak_webhooks', jsonb_build_object('op', lower(tg_op),
    'webhook_id', case when tg_op = 'DELETE' then old.webhook_id else new.webhook_id end));
  return null;
end $$;
create trigger webhook_previous_tokens_notify after insert or update of grace_until or delete on webhook_previous_tokens
  for each row execute function inntak_notify_webhook_grace();

-- The intake's write with the previous token a delivery came with (its hash; null: the current
-- token): the same write, then, in its transaction, the log row marked and the hit counted. The
-- 21-argument function stays as it was, for an API of the previous version during a rollout.
create function inntak_intake_write_quiet(node_id uuid, node_kind text, node_title text, node_content text,
  node_visibility visibility, node_metadata jsonb, node_created_by uuid, edge_id uuid, edge_source_id uuid,
  edge_target_id uuid, edge_type text, edge_metadata jsonb, edge_system boolean, edge_created_by uuid,
  log_id uuid, log_webhook_id uuid, log_received_at timestamptz, log_delivery_id text, log_event text,
  log_bytes bigint, log_duration_ms integer, log_previous_token text)
returns table (propagation_error text, duplicate_node_id uuid, duplicate_edge_id uuid) language plpgsql as $$
begin
  return query select * from inntak_intake_write_quiet($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
                                                       $15, $16, $17, $18, $19, $20, $21);
  if log_previous_token is not null then
    update webhook_deliveries d set previous_token = true where d.id = log_id;
    update webhook_previous_tokens t set hits = t.hits + 1, last_hit_at = greatest(t.last_hit_at, log_received_at)
     where t.token_hash = log_previous_token;
  end if;
end $$;
