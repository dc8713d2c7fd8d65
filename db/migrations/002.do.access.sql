-- Access matrix rules (docs/access.md). Every node_access row is derived from edges: a granting
-- edge between subject and object, or a belongs_to edge that copies a row from the collection
-- the object belongs to. packages/postgres/src/access-propagation.ts recomputes rows from these.

-- Which level an edge grants its source on its target, or null for edges that grant nothing.
-- Mirrored by levelGrantedBy() in packages/access/src/grants.ts; a test keeps the two in step.
-- A member_of edge may carry a weaker or stronger level than `member` in metadata.access
-- (grant_access writes it); `owner` always comes from an owner edge.
create function access_granted_by(edge_type text, metadata jsonb) returns access_level
  language sql immutable parallel safe
  return case edge_type
    when 'owner' then 'owner'::access_level
    when 'member_of' then case metadata ->> 'access'
      when 'reader' then 'reader'::access_level
      when 'admin' then 'admin'::access_level
      else 'member'::access_level end
  end;

-- Recomputing one (subject, object) pair looks for the edges between exactly those two nodes.
create index edges_source_target_idx on edges (source_id, target_id);
