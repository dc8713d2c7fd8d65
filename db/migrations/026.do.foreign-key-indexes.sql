-- Every foreign key has an index on its columns (issue 29). Deleting a node sets or cascades
-- the rows that name it; without an index PostgreSQL finds them by reading the whole table:
-- edges.created_by cost a sequential scan of every edge per deleted node (measured at 5 M
-- nodes, 20 M edges: 240 deletes took 86 s). test/schema.test.ts keeps it so.
create index edges_created_by_idx on edges (created_by) where created_by is not null;
create index mixer_channels_node_idx on mixer_channels (node_id) where node_id is not null;
create index mixer_channels_created_by_idx on mixer_channels (created_by) where created_by is not null;
create index orchestration_runs_rerun_of_idx on orchestration_runs (rerun_of) where rerun_of is not null;
