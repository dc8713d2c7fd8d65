-- Intake throughput (docs/performance.md): the intake's write as one function call, and cheaper
-- triggers on the rows every intake writes.

-- The whole intake write in one statement, so one round trip and no BEGIN/COMMIT: the statement
-- is its own transaction. Node and edge come as the domain built them. Propagation is a
-- subtransaction (inntak_try_propagate_belongs_to): if it fails, node and edge stay, the repair
-- job is queued in this same transaction and the error is returned for the caller to log; null
-- means it succeeded. A failing node or edge insert fails the whole call, and the error's TABLE
-- field names which of the two ('nodes' or 'edges'), for the spec's two error texts. That label
-- costs one more subtransaction around the inserts (docs/performance.md has its price).
create function inntak_intake_write(
  node_id uuid, node_kind text, node_title text, node_content text, node_visibility visibility,
  node_metadata jsonb, node_created_by uuid,
  edge_id uuid, edge_source_id uuid, edge_target_id uuid, edge_type text, edge_metadata jsonb,
  edge_system boolean, edge_created_by uuid
) returns text
language plpgsql as $$
declare
  step text := 'nodes';
  failure text;
  state text;
  message text;
  detail text;
begin
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
  return failure;
end
$$;

-- Change notifications for inserts and updates name the row by key only (docs/realtime.md), so
-- they need not turn the whole row, a webhook's payload included, into JSON first, and such a
-- small payload never needs the overflow table. Same payloads as inntak_notify_change wrote;
-- deletes keep that function (they carry the old row and its audience).
create function inntak_notify_write() returns trigger
language plpgsql as $$
begin
  if tg_table_name = 'node_access' then
    perform pg_notify(tg_argv[0], jsonb_build_object('op', lower(tg_op), 'subject_id', new.subject_id,
      'object_id', new.object_id, 'at', clock_timestamp())::text);
  else
    perform pg_notify(tg_argv[0], jsonb_build_object('op', lower(tg_op), 'id', new.id, 'at', clock_timestamp())::text);
  end if;
  return null;
end $$;

drop trigger nodes_notify_write on nodes;
create trigger nodes_notify_write after insert or update on nodes
  for each row execute function inntak_notify_write('inntak_nodes');
drop trigger edges_notify_write on edges;
create trigger edges_notify_write after insert or update on edges
  for each row execute function inntak_notify_write('inntak_edges');
drop trigger node_access_notify_write on node_access;
create trigger node_access_notify_write after insert or update on node_access
  for each row execute function inntak_notify_write('inntak_access');

-- The search documents of a new node (005, 007): a row trigger instead of a statement trigger
-- with a transition table, which kept a copy of every inserted row (payload included) only to
-- read two columns of it. The title is parsed once for both documents (node_search_document is
-- the title's document followed by the content's). A new node cannot have documents yet
-- (node_search's key references nodes), so no conflict handling either.
drop trigger nodes_search_insert on nodes;
drop function node_search_insert();
create function node_search_insert() returns trigger language plpgsql as $$
declare
  title_document tsvector := setweight(to_tsvector('simple'::regconfig, coalesce(new.title, '')), 'A');
begin
  insert into node_search (node_id, document, title_document)
  values (new.id, title_document || setweight(to_tsvector('simple'::regconfig, coalesce(new.content, '')), 'B'), title_document);
  return null;
end $$;
create trigger nodes_search_insert after insert on nodes
  for each row execute function node_search_insert();
