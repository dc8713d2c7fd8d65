-- Intake's change notices sent just after its commit instead of inside it (issue 40). A
-- transaction that has called pg_notify takes the database's one notify lock just before it
-- commits and keeps it until its commit record is flushed, so writers that notify commit one at
-- a time, each waiting for the disk in turn: pgbench of the intake's SQL at 8 clients did
-- 158–282 transactions a second with the notices and 746–784 without (the 2-core machine at
-- load 14, docs/performance.md). The API now writes through inntak_intake_write_quiet and then
-- sends the same notices, read from the committed rows, with inntak_intake_notices: a statement
-- that writes nothing, so its commit flushes nothing and holds the lock only for a moment.
-- Every other write (and an older API calling inntak_intake_write) notifies as before.

-- The triggers' notices of inserted and updated rows, skipped where the writer sends them itself.
drop trigger nodes_notify_write on nodes;
create trigger nodes_notify_write after insert or update on nodes for each row
  when (current_setting('inntak.notices_after_commit', true) is distinct from 'on')
  execute function inntak_notify_write('inntak_nodes');
drop trigger edges_notify_write on edges;
create trigger edges_notify_write after insert or update on edges for each row
  when (current_setting('inntak.notices_after_commit', true) is distinct from 'on')
  execute function inntak_notify_write('inntak_edges');
drop trigger node_access_notify_update on node_access;
create trigger node_access_notify_update after update on node_access for each row
  when (current_setting('inntak.notices_after_commit', true) is distinct from 'on')
  execute function inntak_notify_write('inntak_access');
create or replace function inntak_node_access_inserted() returns trigger language plpgsql as $$
begin
  if current_setting('inntak.notices_after_commit', true) is distinct from 'on' then
    perform pg_notify('inntak_access', jsonb_build_object('op', 'insert', 'subject_id', c.subject_id,
      'object_id', c.object_id, 'at', clock_timestamp())::text) from changed c;
  end if;
  update node_search s set readers = inntak_node_readers(s.node_id)
   where s.node_id in (select distinct c.object_id from changed c);
  return null;
end $$;

-- inntak_intake_write with the transaction's notices left to the caller (the setting is local
-- to the transaction, which is the intake's statement: one write, or a group commit's batch).
create function inntak_intake_write_quiet(node_id uuid, node_kind text, node_title text, node_content text,
  node_visibility visibility, node_metadata jsonb, node_created_by uuid, edge_id uuid, edge_source_id uuid,
  edge_target_id uuid, edge_type text, edge_metadata jsonb, edge_system boolean, edge_created_by uuid,
  log_id uuid, log_webhook_id uuid, log_received_at timestamptz, log_delivery_id text, log_event text,
  log_bytes bigint, log_duration_ms integer)
returns table (propagation_error text, duplicate_node_id uuid, duplicate_edge_id uuid) language plpgsql as $$
begin
  perform set_config('inntak.notices_after_commit', 'on', true);
  return query select * from inntak_intake_write($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
                                                 $15, $16, $17, $18, $19, $20, $21);
end $$;

-- The notices the triggers would have sent for written intakes, in their order: the node, its
-- edge, its access rows, each as inntak_notify_write and inntak_node_access_inserted make them.
create function inntak_intake_notices(p_nodes uuid[], p_edges uuid[]) returns void language plpgsql as $$
begin
  for i in 1 .. coalesce(cardinality(p_nodes), 0) loop
    perform pg_notify('inntak_nodes', jsonb_build_object('op', 'insert', 'id', p_nodes[i], 'at', clock_timestamp())::text);
    perform pg_notify('inntak_edges', jsonb_build_object('op', 'insert', 'id', p_edges[i], 'at', clock_timestamp())::text);
    perform pg_notify('inntak_access', jsonb_build_object('op', 'insert', 'subject_id', a.subject_id,
      'object_id', a.object_id, 'at', clock_timestamp())::text)
      from node_access a where a.object_id = p_nodes[i];
  end loop;
end $$;
