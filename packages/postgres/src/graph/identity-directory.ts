import type { Caller, IdentityDirectory } from '@inntak/access';
import type { Db } from '../platform/index.js';

/** auth_identities on PostgreSQL. A row with an empty issuer matches a subject from any issuer. */
export class PostgresIdentityDirectory implements IdentityDirectory {
  constructor(private readonly db: Db) {}

  async findCaller(issuer: string, subject: string): Promise<Caller | undefined> {
    const row = await this.db
      .selectFrom('auth_identities as i')
      .leftJoin('system_admins as a', 'a.node_id', 'i.node_id')
      .select(['i.node_id', 'a.node_id as admin_id'])
      .where('i.subject', '=', subject)
      .where('i.issuer', 'in', [issuer, ''])
      // An exact issuer match wins over the catch-all row.
      .orderBy('i.issuer', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!row) return undefined;
    return { personId: row.node_id, isAdmin: row.admin_id !== null };
  }
}
