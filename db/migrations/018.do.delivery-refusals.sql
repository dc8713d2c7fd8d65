-- Refused requests, counted (issue 22, finding 12). Anyone holding a webhook's URL can make it
-- refuse requests as fast as they can send them (unsigned, oversized, bad encoding): a row per
-- request let 3,000 unsigned POSTs write 3,000 rows with ids of the sender's choosing and push
-- real deliveries past the 10,000 kept per webhook. Anything but a 200 is now counted here, one
-- row per webhook, minute, status and reason (the error without its detail), upserted: at most
-- a handful of rows a minute whatever the rate, and pruned apart from webhook_deliveries, which
-- keeps accepted deliveries (200, and duplicates) only. The id is a UUIDv7 of the minute's first
-- refusal, so the log view pages both tables newest first by id. error, delivery_id and event
-- are the first refusal's; bytes adds up, duration_ms is the longest. No foreign keys, like
-- webhook_deliveries: delete_webhook removes the rows, the worker prunes them.
create table webhook_refusals (
  webhook_id uuid not null,
  minute timestamptz not null,
  status smallint not null,
  reason text not null,
  id uuid not null,
  first_received_at timestamptz not null,
  last_received_at timestamptz not null,
  count integer not null default 1,
  error text not null,
  delivery_id text,
  event text,
  bytes bigint not null default 0,
  duration_ms integer not null default 0,
  primary key (webhook_id, minute, status, reason)
);
create index webhook_refusals_webhook_idx on webhook_refusals (webhook_id, id desc);

-- The refusals logged a row each before this are counted the same way and leave the log.
insert into webhook_refusals (webhook_id, minute, status, reason, id, first_received_at, last_received_at, count, error, delivery_id, event, bytes, duration_ms)
select webhook_id, date_trunc('minute', received_at), status, split_part(coalesce(error, status::text), ': ', 1),
       (array_agg(id order by id))[1], min(received_at), max(received_at), count(*),
       (array_agg(coalesce(error, status::text) order by id))[1], (array_agg(delivery_id order by id))[1],
       (array_agg(event order by id))[1], sum(bytes), max(duration_ms)
  from webhook_deliveries
 where status <> 200
 group by webhook_id, date_trunc('minute', received_at), status, split_part(coalesce(error, status::text), ': ', 1);
delete from webhook_deliveries where status <> 200;
