import type { Db } from '../platform/index.js';

/** The node's kind, or undefined when there is no such node (the CLI names what an option points at). */
export async function nodeKindOf(db: Db, id: string): Promise<string | undefined> {
  const node = await db.selectFrom('nodes').select('node_kind').where('id', '=', id).executeTakeFirst();
  return node?.node_kind;
}

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
