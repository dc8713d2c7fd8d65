-- Query: index support for GET /query/nodes (packages/postgres/src/node-query.ts). Every plan
-- the query makes is meant to stop after a page of rows, not to scan the table.

-- Full-text search over title and content. The document is one immutable function so that the
-- index expression and the query's expression are the same text and the planner matches them.
-- 'simple' configuration: titles and content mix Norwegian, English and code, so no language's
-- stemmer is right for all of them; words match as written, case-folded. A title hit ranks
-- above a content hit (weights A and B). An expression index rather than a stored column keeps
-- the nodes row (which change events and exports carry whole) as it was.
create function node_search_document(title text, content text) returns tsvector
  language sql immutable parallel safe
  return setweight(to_tsvector('simple'::regconfig, coalesce(title, '')), 'A')
      || setweight(to_tsvector('simple'::regconfig, coalesce(content, '')), 'B');

create index nodes_search_idx on nodes using gin (node_search_document(title, content));

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
