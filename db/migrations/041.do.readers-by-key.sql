-- Issue 40: the search rows' readers after access rows are added or removed, found by key.
--
-- 025/030/031 updated them with `where s.node_id in (select distinct object_id from changed)`.
-- A PL/pgSQL statement keeps the plan its session made first, and a session that first ran it
-- while node_search was small kept a sequential scan of node_search: measured under
-- bench:intake, one scan per intake reading on average 3,000 rows (12.9 million rows for 4,339
-- intakes in 10 s), 0.9 ms of the 1.8 ms an intake's write took, growing with the table until an
-- ANALYZE happened to replan it. An intake's own node has no search row yet (it is written at
-- commit), so the update found nothing for all that work.
--
-- Now one probe of node_search's primary key per node, whose plan is the same at any size. A
-- statement touching very many nodes (a grant to a large collection, a collection deleted)
-- keeps the one set-wise update, where reading the table once is the cheaper plan anyway.
create function inntak_node_search_readers_of(ids uuid[]) returns void language plpgsql as $$
declare
  id uuid;
begin
  if cardinality(ids) > 1000 then
    update node_search s set readers = inntak_node_readers(s.node_id) where s.node_id = any(ids);
    return;
  end if;
  foreach id in array ids loop
    update node_search set readers = inntak_node_readers(id) where node_id = id;
  end loop;
end $$;

create or replace function inntak_node_access_inserted() returns trigger language plpgsql as $$
begin
  if current_setting('inntak.notices_after_commit', true) is distinct from 'on' then
    perform pg_notify('inntak_access', jsonb_build_object('op', 'insert', 'subject_id', c.subject_id,
      'object_id', c.object_id, 'at', clock_timestamp())::text) from changed c;
  end if;
  perform inntak_node_search_readers_of(array(select distinct c.object_id from changed c));
  return null;
end $$;

-- Deleted access rows (025's statement trigger on delete).
create or replace function inntak_node_search_access() returns trigger language plpgsql as $$
begin
  perform inntak_node_search_readers_of(array(select distinct c.object_id from changed c));
  return null;
end $$;
