-- Foundation: the graph (nodes, edges), the access matrix and login identities.

-- Visibility and access levels are ordered enums so that comparisons (`>=`) and GREATEST
-- follow the order the spec gives.
create type visibility as enum ('hidden', 'discoverable', 'readable', 'open');
create type access_level as enum ('reader', 'member', 'admin', 'owner');

-- Nodes: everything in the graph. node_kind stays text because the set of kinds grows with
-- features; the application checks it where it matters.
create table nodes (
  id uuid primary key,
  node_kind text not null,
  title text,
  content text,
  visibility visibility not null default 'hidden',
  metadata jsonb not null default '{}',
  created_by uuid references nodes (id) on delete set null,
  created_at timestamptz not null default now()
);

-- Intake looks a webhook up by its secret token on every request: an index lookup, never a
-- scan. Unique, so a token belongs to exactly one webhook.
create unique index nodes_webhook_token_idx on nodes ((metadata ->> 'token')) where node_kind = 'webhook';
create index nodes_kind_idx on nodes (node_kind);
create index nodes_created_by_idx on nodes (created_by);

-- Edges: typed links. `system` edges are made by the service itself.
create table edges (
  id uuid primary key,
  source_id uuid not null references nodes (id) on delete cascade,
  target_id uuid not null references nodes (id) on delete cascade,
  edge_type text not null,
  metadata jsonb not null default '{}',
  system boolean not null default false,
  created_by uuid references nodes (id) on delete set null,
  created_at timestamptz not null default now()
);
create index edges_source_type_idx on edges (source_id, edge_type);
create index edges_target_type_idx on edges (target_id, edge_type);

-- The access matrix: one row per (subject, object). via_edge records the edge that granted the
-- row; deleting that edge deletes what it granted.
create table node_access (
  subject_id uuid not null references nodes (id) on delete cascade,
  object_id uuid not null references nodes (id) on delete cascade,
  access access_level not null,
  via_edge uuid references edges (id) on delete cascade,
  primary key (subject_id, object_id)
);
create index node_access_object_idx on node_access (object_id);
create index node_access_via_edge_idx on node_access (via_edge);

-- Login identities: a JWT's (issuer, subject) names a person node. An empty issuer matches any
-- issuer, for single-issuer installations.
create table auth_identities (
  issuer text not null default '',
  subject text not null,
  node_id uuid not null references nodes (id) on delete cascade,
  created_at timestamptz not null default now(),
  primary key (issuer, subject)
);
create index auth_identities_node_idx on auth_identities (node_id);

-- System administrators (`inntak person add --admin`): may use the admin operations on
-- everything. Kept out of node metadata so no graph write can grant it.
create table system_admins (
  node_id uuid primary key references nodes (id) on delete cascade,
  created_at timestamptz not null default now()
);
