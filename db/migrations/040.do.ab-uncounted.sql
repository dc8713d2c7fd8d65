-- Issue 39 point 4: an editor sees how many impressions were not counted and why. The API's
-- recorder already writes one ab_events row per variant and hour of the week per flush; the
-- uncounted impressions of that variant and hour go in the same row (no extra write per page
-- view): shown to a crawler or a request without a User-Agent (bot), a prefetch or prerender
-- (prefetch), a client of a network over AB_CLIENTS_PER_ADDRESS this window (address_cap), a
-- client already counted for the article this window (repeat). Summed per round like the counts.
-- Columns with a constant default: no table rewrite.
alter table ab_events
  add column uncounted_bot integer not null default 0 check (uncounted_bot >= 0),
  add column uncounted_prefetch integer not null default 0 check (uncounted_prefetch >= 0),
  add column uncounted_address_cap integer not null default 0 check (uncounted_address_cap >= 0),
  add column uncounted_repeat integer not null default 0 check (uncounted_repeat >= 0);
