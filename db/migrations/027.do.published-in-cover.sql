-- The publication's articles newest first, with the article's id in the index (issue 29): a
-- search of common words walks a publication's published_in edges and probes each article's
-- search document; with source_id in the index the walk reads no edge rows (measured at 1 M
-- nodes, a publication of 100,000 articles, a common word's 20th window, 11,500 edges walked:
-- 39 ms, against 814 ms through the edge rows). It replaces edges_published_in_idx, whose
-- order it keeps.
create index edges_published_in_cover_idx on edges (target_id, created_at desc, id desc) include (source_id)
  where edge_type = 'published_in';
drop index edges_published_in_idx;
