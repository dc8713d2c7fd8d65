-- Query: search documents and index support for GET /query/nodes (packages/postgres/src/node-query.ts). Every plan
-- the query makes is meant to stop after a page of rows, not to scan the table.

-- Full-text search over title and content. 'simple' configuration: titles and content mix
-- Norwegian, English and code, so no language's stemmer is right for all of them; words match
-- as written, case-folded. A title hit ranks above a content hit (weights A and B).
create function node_search_document(title text, content text) returns tsvector
  language sql immutable parallel safe
  return setweight(to_tsvector('simple'::regconfig, coalesce(title, '')), 'A')
      || setweight(to_tsvector('simple'::regconfig, coalesce(content, '')), 'B');

-- The documents live beside the nodes, not in them: ranking reads a stored document ten times
-- faster than it re-parses title and content, and a column on nodes would travel with every
-- whole-row read and change event, carrying a discoverable node's content words to callers
-- who may only see its summary. Triggers keep one row per node.
create table node_search (
  node_id uuid primary key references nodes (id) on delete cascade,
  document tsvector not null
);
create index node_search_document_idx on node_search using gin (document);

create function node_search_insert() returns trigger language plpgsql as $$
begin
  insert into node_search (node_id, document)
  select id, node_search_document(title, content) from new_nodes
  on conflict (node_id) do update set document = excluded.document;
  return null;
end $$;
create trigger nodes_search_insert after insert on nodes
  referencing new table as new_nodes for each statement execute function node_search_insert();

create function node_search_update() returns trigger language plpgsql as $$
begin
  update node_search set document = node_search_document(new.title, new.content) where node_id = new.id;
  return null;
end $$;
create trigger nodes_search_update after update of title, content on nodes
  for each row execute function node_search_update();

insert into node_search (node_id, document) select id, node_search_document(title, content) from nodes;

-- Keyset pages are in id order (UUIDv7 = creation order). Each filter gets an index that
-- yields its rows already in that order, so a page reads about a page of rows:
-- - everyone's view of the non-hidden nodes;
create index nodes_not_hidden_id_idx on nodes (id) where visibility <> 'hidden';
-- - one visibility (the filter `visibility=`);
create index nodes_visibility_id_idx on nodes (visibility, id);
-- - one kind, one creator (these replace the single-column indexes of 001);
create index nodes_kind_id_idx on nodes (node_kind, id);
drop index nodes_kind_idx;
create index nodes_created_by_id_idx on nodes (created_by, id);
drop index nodes_created_by_idx;
-- - a creation-time range;
create index nodes_created_at_idx on nodes (created_at);
-- - a collection's members: its belongs_to edges in member order (replaces the
--   (target_id, edge_type) index of 001; the caller's own access rows are already in
--   object order through node_access's primary key (subject_id, object_id)).
create index edges_target_type_source_idx on edges (target_id, edge_type, source_id);
drop index edges_target_type_idx;
