-- Issue 39: the console shows each run's retry attempts. A step's retry re-queues the run as a
-- new job that ends well (run-records.ts requeueRun), so neither graphile-worker's job row nor
-- the log keeps why the attempt before it failed: the run keeps it, one element per attempt that
-- failed and was retried ({step, attempt, error, at, job_id}), oldest first. Bounded by the
-- script: at most 5 attempts per step (a retry's attempts) times its steps and for_each elements.
alter table orchestration_runs add column attempts jsonb not null default '[]'::jsonb;
alter table orchestration_runs add constraint orchestration_runs_attempts_check check (jsonb_typeof(attempts) = 'array');
