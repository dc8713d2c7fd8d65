-- Security (issue 11; docs/security.md): capped inheritance, bounded edge reads, title-only
-- search for summary readers, and the secret that seals query cursors.

-- A belongs_to edge X → C made by an admin (not an owner) of X carries metadata.max_access:
-- the rows C passes down to X are lowered to it, so a write never gives anyone more on X than
-- its maker could grant (docs/access.md). Mirrored by inheritedLevel() in
-- packages/access/src/grants.ts; a test keeps the two in step.
create function inntak_inherited_access(access access_level, metadata jsonb) returns access_level
  language sql immutable parallel safe
  return least(access, case metadata ->> 'max_access'
    when 'reader' then 'reader'::access_level
    when 'member' then 'member'::access_level
    when 'admin' then 'admin'::access_level
    else 'owner'::access_level end);

-- Intake's propagation step (006) with the cap: intake's own edges carry none, but the repair
-- job runs this for any belongs_to edge.
create or replace function inntak_propagate_belongs_to(edge uuid) returns integer
language plpgsql as $$
declare
  written integer;
begin
  insert into node_access (subject_id, object_id, access, via_edge)
  select a.subject_id, e.source_id, inntak_inherited_access(a.access, e.metadata), e.id
    from edges e
    join node_access a on a.object_id = e.target_id
   where e.id = edge and e.edge_type = 'belongs_to' and a.subject_id <> e.source_id
  on conflict (subject_id, object_id) do update
     set access = excluded.access, via_edge = excluded.via_edge
   where node_access.access < excluded.access;
  get diagnostics written = row_count;
  return written;
end
$$;

-- GET /nodes/{id} pages a node's edges in id order (UUIDv7: creation order), from each side:
-- a page reads about a page of index entries, however many edges the node has.
create index edges_source_id_idx on edges (source_id, id);
create index edges_target_id_idx on edges (target_id, id);

-- A caller who sees a node only as a summary (discoverable, no access) may match its title
-- only: its content words must not be findable, not even through `-word` or a phrase. The
-- title's own document, with the title weight, is kept beside the whole one.
alter table node_search add column title_document tsvector;
update node_search s set title_document = setweight(to_tsvector('simple'::regconfig, coalesce(n.title, '')), 'A')
  from nodes n where n.id = s.node_id;
alter table node_search alter column title_document set not null;
create index node_search_title_document_idx on node_search using gin (title_document);

create or replace function node_search_insert() returns trigger language plpgsql as $$
begin
  insert into node_search (node_id, document, title_document)
  select id, node_search_document(title, content), setweight(to_tsvector('simple'::regconfig, coalesce(title, '')), 'A')
    from new_nodes
  on conflict (node_id) do update set document = excluded.document, title_document = excluded.title_document;
  return null;
end $$;

create or replace function node_search_update() returns trigger language plpgsql as $$
begin
  update node_search
     set document = node_search_document(new.title, new.content),
         title_document = setweight(to_tsvector('simple'::regconfig, coalesce(new.title, '')), 'A')
   where node_id = new.id;
  return null;
end $$;

-- Secrets the service makes for itself, shared by every API instance and kept across
-- restarts: `query_cursor` seals /query/nodes cursors (AES-256-GCM), so a client can neither
-- read the rank inside nor forge one. 32 bytes from two random UUIDs (244 random bits).
create table server_secrets (
  name text primary key,
  secret bytea not null,
  created_at timestamptz not null default now()
);
insert into server_secrets (name, secret)
values ('query_cursor', decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
