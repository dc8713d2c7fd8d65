-- A/B tests an editor can trust (issue 24, docs/publishing.md "A/B tests").

-- One row per test (publication, article, variant type): its round and what the evaluator last
-- saw. A round starts when a test starts or its set of variants changes (a new challenger, a
-- winner brought back into testing): only AB events recorded from round_started_at on count, so
-- a returning winner does not carry its old counts against a challenger at zero. last_reason is
-- why the last look decided nothing (too_few_impressions, sample_ratio_mismatch, …), null once
-- decided. A test without a row (older data) counts all its events, as round 1.
create table ab_tests (
  publication_id uuid not null references nodes (id) on delete cascade,
  article_id uuid not null references nodes (id) on delete cascade,
  variant_type text not null,
  round integer not null default 1 check (round >= 1),
  round_started_at timestamptz not null default now(),
  last_evaluated_at timestamptz,
  last_reason text,
  primary key (publication_id, article_id, variant_type)
);
create index ab_tests_article_idx on ab_tests (article_id);

-- The decision history an editor reads: rounds started (by whom), winners (the evaluator, with
-- the p-values it decided on, or an editor's override), and the moments the evaluator stopped
-- deciding because the split was off. decided_by is the person; null means the evaluator.
create table ab_decisions (
  id bigint generated always as identity primary key,
  publication_id uuid not null references nodes (id) on delete cascade,
  article_id uuid not null references nodes (id) on delete cascade,
  variant_type text not null,
  round integer not null,
  kind text not null check (kind in ('round_started', 'winner', 'override', 'sample_ratio_mismatch')),
  variant_edge_id uuid references edges (id) on delete set null,
  decided_by uuid references nodes (id) on delete set null,
  detail jsonb not null default '{}',
  decided_at timestamptz not null default now()
);
create index ab_decisions_test_idx on ab_decisions (publication_id, article_id, variant_type, id desc);
create index ab_decisions_article_idx on ab_decisions (article_id);
create index ab_decisions_decided_by_idx on ab_decisions (decided_by);
create index ab_decisions_variant_idx on ab_decisions (variant_edge_id);

-- Summing a round's events: a variant's events from a time on.
create index ab_events_variant_time_idx on ab_events (variant_edge_id, recorded_at) include (impressions, clicks);
