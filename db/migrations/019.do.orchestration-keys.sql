-- Issue 22, finding 8: the matcher ran inntak_orchestration_node_keys (017) once per event as a
-- SQL function with sub-selects, which PostgreSQL cannot inline and plans anew on every call
-- (≈ 0.2 ms, half the matcher's cost). As plpgsql its plans are kept between calls; same keys.
create or replace function inntak_orchestration_node_keys(p_node nodes) returns text[]
language plpgsql stable as $$
begin
  return array['', 'node_kind:' || p_node.node_kind]
    || array(select 'has_trait:' || (x.v #>> '{}')
             from jsonb_array_elements(case when jsonb_typeof(p_node.metadata -> 'traits') = 'array' then p_node.metadata -> 'traits' else '[]'::jsonb end) as x(v)
             where jsonb_typeof(x.v) = 'string')
    || array(select 'has_tag:' || (t.metadata ->> 'tag')
             from edges e join nodes t on t.id = e.target_id
             where e.source_id = p_node.id and e.edge_type = 'tagged' and t.node_kind = 'tag' and t.metadata ->> 'tag' is not null);
end $$;
