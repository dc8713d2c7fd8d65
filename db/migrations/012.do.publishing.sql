-- Publishing (docs/publishing.md): a publication is a collection whose metadata.publication
-- holds { slug, title, about, domains }; an article is published by a `published_in` edge
-- article → publication; a front-page variant is a `front_page_variant` edge publication →
-- article. Only the indexes and tables the pages and the A/B evaluator need are added here.

-- Every page request finds its publication by slug: an index lookup, and slugs are unique.
create unique index nodes_publication_slug_idx on nodes ((metadata #>> '{publication,slug}'))
  where node_kind = 'collection' and metadata ? 'publication';

-- Custom domains, one row each, so that a domain belongs to one publication (a unique index
-- cannot look inside the metadata array). Written in create_publication's transaction, beside
-- metadata.publication.domains, which stays the publication's own description.
create table publication_domains (
  domain text primary key,
  publication_id uuid not null references nodes (id) on delete cascade,
  created_at timestamptz not null default now()
);
create index publication_domains_publication_idx on publication_domains (publication_id);

-- A publication's articles newest first, a page at a time: its published_in edges in
-- publishing order. An article is published in a publication at most once.
create index edges_published_in_idx on edges (target_id, created_at desc, id desc) where edge_type = 'published_in';
create unique index edges_published_in_once_idx on edges (source_id, target_id) where edge_type = 'published_in';

-- The evaluator reads the variants still under test.
create index edges_variant_testing_idx on edges (source_id, target_id)
  where edge_type = 'front_page_variant' and metadata ->> 'ab_status' = 'testing';

-- AB events: impressions and clicks of front-page variants, written in batches by the API (one
-- row per variant and hour of the week per flush), summed by the evaluator. hour_of_week is
-- 0 (Monday 00 UTC) … 167 (Sunday 23 UTC), kept for time-of-week analysis.
create table ab_events (
  id bigint generated always as identity primary key,
  variant_edge_id uuid not null references edges (id) on delete cascade,
  hour_of_week smallint not null check (hour_of_week between 0 and 167),
  impressions integer not null default 0 check (impressions >= 0),
  clicks integer not null default 0 check (clicks >= 0),
  recorded_at timestamptz not null default now()
);
create index ab_events_variant_idx on ab_events (variant_edge_id) include (impressions, clicks);
