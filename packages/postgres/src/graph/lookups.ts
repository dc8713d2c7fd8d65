import type { Db } from '../platform/index.js';

/** The person a login identity belongs to; issuer '' is "any issuer". */
export async function personOfIdentity(db: Db, identity: { issuer: string; subject: string }): Promise<string | undefined> {
  const row = await db
    .selectFrom('auth_identities')
    .select('node_id')
    .where('issuer', '=', identity.issuer)
    .where('subject', '=', identity.subject)
    .executeTakeFirst();
  return row?.node_id;
}
