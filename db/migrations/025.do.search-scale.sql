-- Search at scale (issue 29): a search ranks a bounded window of the newest visible matches
-- instead of every match (packages/postgres/src/graph/node-search.ts). Finding that window fast
-- needs the read filter's inputs next to the documents, so a window is read from one index in
-- node order and stops once full, without visiting nodes (wide rows: payloads) or hidden rows.

-- Who may see a document, beside it and kept by the triggers below: the node's visibility and
-- creator, and `readers`, one lexeme per subject with an access row on it (the subject's id
-- without hyphens, inntak_reader_lexeme), so "hidden, and the caller has a row" is a GIN
-- condition ANDed with the words' in one bitmap instead of a probe per match.
create function inntak_reader_lexeme(subject uuid) returns text language sql immutable parallel safe
  return replace(subject::text, '-', '');
create function inntak_node_readers(node uuid) returns tsvector language sql stable parallel safe
  return coalesce((select array_to_tsvector(array_agg(inntak_reader_lexeme(a.subject_id))) from node_access a where a.object_id = node), ''::tsvector);
alter table node_search add column visibility visibility, add column created_by uuid, add column readers tsvector not null default '';
update node_search s set visibility = n.visibility, created_by = n.created_by, readers = inntak_node_readers(s.node_id)
  from nodes n where n.id = s.node_id;
alter table node_search alter column visibility set not null;

-- A search's parts (see node-search.ts), each walked newest first with its own visibility as
-- the index's predicate: readable/open documents, discoverable title documents, and the nodes
-- of one creator. Hidden nodes with an access row are reached from node_access's key.
create index node_search_shown_idx on node_search (node_id) where visibility in ('readable', 'open');
create index node_search_discoverable_idx on node_search (node_id) where visibility = 'discoverable';
create index node_search_created_by_idx on node_search (created_by, node_id);
-- The same parts for a word too rare to find by walking: only their own rows in the bitmap.
create index node_search_shown_document_idx on node_search using gin (document) where visibility in ('readable', 'open');
create index node_search_discoverable_title_idx on node_search using gin (title_document) where visibility = 'discoverable';
-- Readers and words in one GIN index: "the caller has a row and the words match" is then
-- intersected inside the index (a heavy caller's 40,000 rows and a word's 9,000 matches: 2 ms,
-- where two bitmaps ANDed took 58 ms at 1 M nodes).
create index node_search_readers_document_idx on node_search using gin (readers, document) where visibility in ('hidden', 'discoverable');

-- The documents of a new node are written at commit (a deferred trigger), once its access rows
-- exist: written at insert, intake's propagation would rewrite the row (and every index entry
-- of its documents) a moment later just to add the readers. It reads the node as committed, so
-- changes and deletes later in the same transaction are included. 008's function otherwise.
drop trigger nodes_search_insert on nodes;
create or replace function node_search_insert() returns trigger language plpgsql as $$
begin
  insert into node_search (node_id, document, title_document, visibility, created_by, readers)
  select n.id, d.title_document || setweight(to_tsvector('simple'::regconfig, coalesce(n.content, '')), 'B'),
         d.title_document, n.visibility, n.created_by, inntak_node_readers(n.id)
    from nodes n, lateral (select setweight(to_tsvector('simple'::regconfig, coalesce(n.title, '')), 'A') as title_document) d
   where n.id = new.id
  on conflict (node_id) do nothing;
  return null;
end $$;
create constraint trigger nodes_search_insert after insert on nodes deferrable initially deferred
  for each row execute function node_search_insert();

-- Access rows added or removed: the readers of the nodes they are on, recomputed once per
-- statement and node (intake's propagation adds several rows of one node in one statement).
create function inntak_node_search_access() returns trigger language plpgsql as $$
begin
  update node_search s set readers = inntak_node_readers(s.node_id)
   where s.node_id in (select distinct c.object_id from changed c);
  return null;
end $$;
create trigger node_access_search_insert after insert on node_access
  referencing new table as changed for each statement execute function inntak_node_search_access();
create trigger node_access_search_delete after delete on node_access
  referencing old table as changed for each statement execute function inntak_node_search_access();
create function inntak_node_search_access_moved() returns trigger language plpgsql as $$
begin
  update node_search s set readers = inntak_node_readers(s.node_id) where s.node_id in (old.object_id, new.object_id);
  return null;
end $$;
create trigger node_access_search_update after update of subject_id, object_id on node_access
  for each row execute function inntak_node_search_access_moved();

-- A change of visibility or creator (the creator's node deleted sets it null) follows the node.
create function inntak_node_search_reader() returns trigger language plpgsql as $$
begin
  update node_search set visibility = new.visibility, created_by = new.created_by where node_id = new.id;
  return null;
end $$;
create trigger nodes_search_reader after update of visibility, created_by on nodes
  for each row when (old.visibility is distinct from new.visibility or old.created_by is distinct from new.created_by)
  execute function inntak_node_search_reader();

-- How common the words are (the planner's estimate from the column statistics, per document
-- kind, and the table's size): a search walks its parts newest first when the words are common
-- and reads a bitmap of their matches when they are rare. One call, no round trip per estimate
-- (volatile only because EXPLAIN may not run in a stable function).
create function inntak_search_estimate(terms tsquery, out documents float8, out titles float8, out total float8)
  language plpgsql volatile as $$
declare
  plan json;
begin
  select greatest(c.reltuples, 1) into total from pg_class c where c.oid = 'node_search'::regclass;
  execute 'explain (format json) select 1 from node_search where document @@ $1' using terms into plan;
  documents := (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
  execute 'explain (format json) select 1 from node_search where title_document @@ $1' using terms into plan;
  titles := (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
end $$;
