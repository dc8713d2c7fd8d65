-- Who asked for a run (issue 35, finding 3): run_orchestration and rerun_orchestration had no cap
-- per person, and three manual runs of one login held every worker slot. The API counts the runs
-- a person asked for that are queued or running (ORCHESTRATION_RUNS_PER_PERSON, 429 past it).
-- Null for runs an event, a schedule or the operator started.
alter table orchestration_runs add column requested_by uuid references nodes (id) on delete set null;
-- The count reads (requested_by, status); deleting a person finds their runs by it too.
create index orchestration_runs_requested_by_idx on orchestration_runs (requested_by, status)
  where requested_by is not null;

-- orchestrate may take at most two of the three slots (issue 35, finding 3): another person's job
-- (a reading, a mix) always finds one. An operator who changed the rule keeps their value.
update job_priority_rules set max_concurrent = 2 where job_type = 'orchestrate' and max_concurrent = 3;
