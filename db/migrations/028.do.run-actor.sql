-- Who each run acted as (issue 35, finding 2): a re-run hands the first run's step outputs to
-- the script, so it is refused when the orchestration now runs as someone else (an admin took it
-- over); their script must not read what the first one's requests answered. Set when a run
-- starts; null for runs from before, which are therefore never re-run. A person's node id, kept
-- without a foreign key: a deleted person's runs simply match nobody.
alter table orchestration_runs add column runs_as uuid;
