-- Issue 38: a key every process of a fleet must agree on is kept here, so N processes with
-- only DATABASE_URL agree. Rotation (`inntak secrets rotate <name>`) moves the key to
-- previous_secret and makes a new one; what was signed under the old key stays valid while
-- rotated_at is younger than the overlap the code states (docs/scaling.md, "Shared keys").
alter table server_secrets
  add column previous_secret bytea,
  add column rotated_at timestamptz;

-- Issue 38: which front-page impressions of an A/B test counted, and whether their click did,
-- shared by every API process (it was a map in each process: a click on another process than
-- its impression never counted, and a reload through three processes counted three times).
-- One row per client (a keyed hash of address and User-Agent), article and window
-- (AB_CLIENT_WINDOW_HOURS); rows older than the previous window are deleted as windows turn.
-- No foreign keys: a row lives two windows at most and names nothing a reader could follow;
-- a variant deleted meanwhile only makes its click count nothing (ab_events joins edges).
create table ab_impressions (
  window_index integer not null,
  client text not null,
  network text not null,
  publication_id uuid not null,
  article_id uuid not null,
  id text not null,
  variant_edge_id uuid not null,
  clicked boolean not null default false,
  created_at timestamptz not null default now(),
  primary key (window_index, client, publication_id, article_id)
);
-- A click names its impression by id; the cap counts a network's clients per window.
create unique index ab_impressions_id_idx on ab_impressions (id);
create index ab_impressions_network_idx on ab_impressions (window_index, network, client);
