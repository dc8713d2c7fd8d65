import type { Transaction } from 'kysely';
import type { WebhookSecret } from '@inntak/intake';
import type { Database } from '../platform/index.js';

/** Sets (scheme and secret) or, with null, removes a webhook's signing secret. */
export async function writeWebhookSecret(trx: Transaction<Database>, webhook_id: string, secret: WebhookSecret | null): Promise<void> {
  if (secret === null) {
    await trx.deleteFrom('webhook_secrets').where('webhook_id', '=', webhook_id).execute();
    return;
  }
  await trx
    .insertInto('webhook_secrets')
    .values({ webhook_id, scheme: secret.scheme, secret: secret.secret })
    .onConflict((oc) => oc.column('webhook_id').doUpdateSet((eb) => ({ scheme: eb.ref('excluded.scheme'), secret: eb.ref('excluded.secret'), updated_at: new Date() })))
    .execute();
}
