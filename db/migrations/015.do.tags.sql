-- Tags (docs/graph.md): one node of kind 'tag' per normalized name, so that tagging the same
-- name twice, or two writers racing to create it, finds the same node.
create unique index nodes_tag_name_idx on nodes ((metadata->>'tag')) where node_kind = 'tag';

-- "Which nodes have tag T" uses edges_target_type_source_idx (005) from the tag node backwards.
