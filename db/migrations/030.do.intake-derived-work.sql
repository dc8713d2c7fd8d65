-- Intake's derived work made cheaper (issue 40; measured in docs/performance.md, "Where an
-- intake's database work goes"). What it writes and when is unchanged: search documents with
-- their readers at commit, a change notice per access row.

-- The readers of a node's search document, in plpgsql: as a SQL function with a sub-select it
-- was neither inlined nor kept planned, so every new node (node_search_insert) and every
-- access change planned it anew (0.10 ms of an intake's 1.0 ms database CPU). Same result.
create or replace function inntak_node_readers(node uuid) returns tsvector
language plpgsql stable parallel safe as $$
begin
  return coalesce((select array_to_tsvector(array_agg(inntak_reader_lexeme(a.subject_id))) from node_access a where a.object_id = node), ''::tsvector);
end $$;

-- New access rows: their change notices and their nodes' readers in one statement trigger,
-- instead of a row trigger per access row (intake's propagation writes five in one statement)
-- beside the statement trigger of 025. The notices are those inntak_notify_write sent, one per
-- row in the rows' order; updates keep the row trigger, deletes their own.
create function inntak_node_access_inserted() returns trigger language plpgsql as $$
begin
  perform pg_notify('inntak_access', jsonb_build_object('op', 'insert', 'subject_id', c.subject_id,
    'object_id', c.object_id, 'at', clock_timestamp())::text) from changed c;
  update node_search s set readers = inntak_node_readers(s.node_id)
   where s.node_id in (select distinct c.object_id from changed c);
  return null;
end $$;
drop trigger node_access_notify_write on node_access;
drop trigger node_access_search_insert on node_access;
create trigger node_access_inserted after insert on node_access
  referencing new table as changed for each statement execute function inntak_node_access_inserted();
create trigger node_access_notify_update after update on node_access
  for each row execute function inntak_notify_write('inntak_access');
