import { AppError } from '@inntak/core';
import type { Actor } from '@inntak/access';
import { secretProblem, type SignatureScheme } from '@inntak/intake';
import type { Db } from '../platform/index.js';
import { requireWebhookAdmin } from '../intake/index.js';

/**
 * Sets or removes (`none`) a webhook's signing secret. The answer names the scheme only: the
 * secret is never read back by anything but the intake's token lookup.
 */
export async function setWebhookSecret(
  db: Db,
  actor: Actor,
  input: { webhook_id: string; scheme: SignatureScheme | 'none'; secret?: string | null },
): Promise<{ webhook_id: string; scheme: SignatureScheme | 'none' }> {
  const { webhook_id, scheme } = input;
  if (scheme !== 'none') {
    const problem = input.secret == null ? 'mangler' : secretProblem(scheme, input.secret);
    if (problem) throw new AppError('invalid_input', { detail: `secret: ${problem}` });
  }
  return db.transaction().execute(async (trx) => {
    await requireWebhookAdmin(trx, actor, webhook_id);
    if (scheme === 'none') {
      await trx.deleteFrom('webhook_secrets').where('webhook_id', '=', webhook_id).execute();
    } else {
      await trx
        .insertInto('webhook_secrets')
        .values({ webhook_id, scheme, secret: input.secret! })
        .onConflict((oc) => oc.column('webhook_id').doUpdateSet((eb) => ({ scheme: eb.ref('excluded.scheme'), secret: eb.ref('excluded.secret'), updated_at: new Date() })))
        .execute();
    }
    return { webhook_id, scheme };
  });
}
