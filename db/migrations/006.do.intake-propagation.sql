-- Intake's access-propagation step as SQL functions, so the hot path makes one round trip for
-- it instead of three (savepoint, insert, release).

-- The belongs_to propagation: the edge's source gets every access row its target has, recorded
-- as granted via this edge; a stronger existing row is kept. Idempotent (the repair job runs it
-- again). Returns the number of rows written.
create function inntak_propagate_belongs_to(edge uuid) returns integer
language plpgsql as $$
declare
  written integer;
begin
  insert into node_access (subject_id, object_id, access, via_edge)
  select a.subject_id, e.source_id, a.access, e.id
    from edges e
    join node_access a on a.object_id = e.target_id
   where e.id = edge and e.edge_type = 'belongs_to' and a.subject_id <> e.source_id
  on conflict (subject_id, object_id) do update
     set access = excluded.access, via_edge = excluded.via_edge
   where node_access.access < excluded.access;
  get diagnostics written = row_count;
  return written;
end
$$;

-- The same, for intake: a failure rolls back only this step (the exception block is a
-- subtransaction, like a savepoint) and is returned as text, so node and edge stay and the
-- caller logs it and queues a repair. Returns null on success.
create function inntak_try_propagate_belongs_to(edge uuid) returns text
language plpgsql as $$
begin
  perform inntak_propagate_belongs_to(edge);
  return null;
exception when others then
  return sqlerrm;
end
$$;
