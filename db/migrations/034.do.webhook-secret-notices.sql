-- A webhook's signing secret set, changed or removed is announced on the change stream (issue 37,
-- docs/deliveries.md#outages). The intake spool keeps every known webhook's target, signing
-- secret included, so that a known token is accepted while PostgreSQL is away; a secret changed
-- without a notice would leave that copy verifying with the old secret through the next outage.
-- The notice has a channel of its own, read only by the intake's webhook cache: the rows of
-- webhook_secrets are no one's to read, so the realtime readers (/ws, the page cache) have no
-- row to fetch for it. It names the webhook only, never the secret (a notice is visible to any
-- session that listens).
create function inntak_notify_webhook_secret() returns trigger language plpgsql as $$
begin
  perform inntak_realtime_notify('inntak_webhooks', jsonb_build_object('op', lower(tg_op),
    'webhook_id', case when tg_op = 'DELETE' then old.webhook_id else new.webhook_id end));
  return null;
end $$;

create trigger webhook_secrets_notify after insert or update or delete on webhook_secrets
  for each row execute function inntak_notify_webhook_secret();
