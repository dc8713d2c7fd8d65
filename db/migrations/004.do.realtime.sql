-- Realtime: change notifications on nodes, edges and node_access (docs/realtime.md).
--
-- A notification names the changed row by key; the API reads the rows themselves in one query
-- per burst, because NOTIFY payloads stop at 8000 bytes and a webhook's payload alone is often
-- larger. A deleted row can no longer be read, so a delete notification carries the old row and
-- the facts its audience is computed from (creator, visibility, access rows), captured in a
-- BEFORE trigger while the cascading rows still exist.

-- Notifications too large for NOTIFY wait here for the listeners to read them by id. Every
-- listening API instance reads them, so they are not deleted on read but after a while: a
-- listener that is gone longer than that resyncs its clients anyway.
create table realtime_overflow (
  id bigint generated always as identity primary key,
  payload jsonb not null,
  created_at timestamptz not null default now()
);
create index realtime_overflow_created_idx on realtime_overflow (created_at);

create function inntak_realtime_notify(channel text, payload jsonb) returns void
language plpgsql as $$
declare
  overflow_id bigint;
begin
  payload := payload || jsonb_build_object('at', clock_timestamp());
  if octet_length(payload::text) < 7900 then
    perform pg_notify(channel, payload::text);
    return;
  end if;
  delete from realtime_overflow where created_at < now() - interval '10 minutes';
  insert into realtime_overflow (payload) values (payload) returning id into overflow_id;
  perform pg_notify(channel, jsonb_build_object('overflow', overflow_id)::text);
end $$;

-- The facts a node's audience is computed from; the rules themselves live in
-- packages/access/src/audience.ts. Inside a delete, a node that is already gone is found in the
-- transaction-local note its own BEFORE DELETE trigger left.
create function inntak_node_audience_facts(node_id uuid) returns jsonb
language sql stable as $$
  select coalesce(
    (select jsonb_build_object(
       'created_by', n.created_by,
       'visibility', n.visibility,
       'access', coalesce((select jsonb_agg(jsonb_build_array(a.subject_id, a.access))
                             from node_access a where a.object_id = n.id), '[]'::jsonb))
       from nodes n where n.id = node_id),
    nullif(current_setting('inntak.n' || replace(node_id::text, '-', ''), true), '')::jsonb)
$$;

-- One trigger function for the three tables: the key (id, or subject and object for an access
-- row) and the operation; for a delete also the old row and the audience facts of the node(s)
-- it concerns. A deleted node's facts are left in a transaction-local setting for the edges and
-- access rows its delete cascades to.
create function inntak_notify_change() returns trigger
language plpgsql as $$
declare
  changed jsonb := to_jsonb(case when tg_op = 'DELETE' then old else new end);
  payload jsonb := jsonb_build_object('op', lower(tg_op));
  facts jsonb;
begin
  if tg_table_name = 'node_access' then
    payload := payload || jsonb_build_object('subject_id', changed -> 'subject_id', 'object_id', changed -> 'object_id');
  else
    payload := payload || jsonb_build_object('id', changed -> 'id');
  end if;
  if tg_op = 'DELETE' then
    payload := payload || jsonb_build_object('old', changed);
    if tg_table_name = 'nodes' then
      facts := inntak_node_audience_facts((changed ->> 'id')::uuid);
      perform set_config('inntak.n' || replace(changed ->> 'id', '-', ''), facts::text, true);
      payload := payload || jsonb_build_object('facts', facts);
    elsif tg_table_name = 'edges' then
      payload := payload || jsonb_build_object(
        'source', inntak_node_audience_facts((changed ->> 'source_id')::uuid),
        'target', inntak_node_audience_facts((changed ->> 'target_id')::uuid));
    else
      payload := payload || jsonb_build_object('object', inntak_node_audience_facts((changed ->> 'object_id')::uuid));
    end if;
  end if;
  perform inntak_realtime_notify(tg_argv[0], payload);
  if tg_op = 'DELETE' then
    return old;
  end if;
  return null;
end $$;

-- Deletes notify BEFORE the row goes (the cascades that follow would take the audience with
-- them); inserts and updates AFTER, so the listener reads what was written.
create trigger nodes_notify_write after insert or update on nodes
  for each row execute function inntak_notify_change('inntak_nodes');
create trigger nodes_notify_delete before delete on nodes
  for each row execute function inntak_notify_change('inntak_nodes');
create trigger edges_notify_write after insert or update on edges
  for each row execute function inntak_notify_change('inntak_edges');
create trigger edges_notify_delete before delete on edges
  for each row execute function inntak_notify_change('inntak_edges');
create trigger node_access_notify_write after insert or update on node_access
  for each row execute function inntak_notify_change('inntak_access');
create trigger node_access_notify_delete before delete on node_access
  for each row execute function inntak_notify_change('inntak_access');
