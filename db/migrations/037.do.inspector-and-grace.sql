-- Migrations 035 (a rotated token's grace) and 036 (the delivery inspector) were written side by
-- side and each gave the intake's write a 22nd argument: 035 the previous token's hash (text),
-- 036 the request's masked headers (jsonb). The API calls this one form with both; the 22-argument
-- forms stay for an API of either version during a rollout.
create function inntak_intake_write_quiet(node_id uuid, node_kind text, node_title text, node_content text,
  node_visibility visibility, node_metadata jsonb, node_created_by uuid, edge_id uuid, edge_source_id uuid,
  edge_target_id uuid, edge_type text, edge_metadata jsonb, edge_system boolean, edge_created_by uuid,
  log_id uuid, log_webhook_id uuid, log_received_at timestamptz, log_delivery_id text, log_event text,
  log_bytes bigint, log_duration_ms integer, log_headers jsonb, log_previous_token text)
returns table (propagation_error text, duplicate_node_id uuid, duplicate_edge_id uuid) language plpgsql as $$
begin
  return query select * from inntak_intake_write_quiet($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
                                                       $15, $16, $17, $18, $19, $20, $21, log_headers);
  if log_previous_token is not null then
    update webhook_deliveries d set previous_token = true where d.id = log_id;
    update webhook_previous_tokens t set hits = t.hits + 1, last_hit_at = greatest(t.last_hit_at, log_received_at)
     where t.token_hash = log_previous_token;
  end if;
end $$;

-- A refusal (036) of a request that came with a previous token (035, its hash): counted as a hit
-- on that token too, and its counted row marked (the reason, which the API suffixes, keeps such
-- rows apart from the current token's).
create function inntak_intake_refuse(p_id uuid, p_webhook_id uuid, p_received_at timestamptz, p_status smallint,
  p_error text, p_delivery_id text, p_event text, p_bytes bigint, p_duration_ms integer, p_reason text,
  p_headers jsonb, p_body text, p_body_truncated boolean, p_keep integer, p_previous_token text)
returns boolean language plpgsql as $$
declare
  kept boolean;
begin
  kept := inntak_intake_refuse($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14);
  if p_previous_token is not null then
    update webhook_previous_tokens t set hits = t.hits + 1, last_hit_at = greatest(t.last_hit_at, p_received_at)
     where t.token_hash = p_previous_token;
    update webhook_refusals r set previous_token = true
     where r.webhook_id = p_webhook_id and r.minute = date_trunc('minute', p_received_at)
       and r.status = p_status and r.reason = p_reason;
  end if;
  return kept;
end $$;
