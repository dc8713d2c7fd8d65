-- Issue 38: an orchestration run whose job died with its worker is taken up again from its
-- unfinished step, at most twice; the third time it ends `failed` ("worker lost"). The count
-- is the run's, as each resumption is a new job.
alter table orchestration_runs add column lost_workers integer not null default 0;
