import { sql } from 'kysely';
import type { CollectionEntry, DirectoryReads, PersonEntry } from '@inntak/access';
import type { Db } from '../platform/index.js';
import { nodeVisibleTo } from './read-filter.js';

/**
 * The directory's reads (packages/access ports.ts `DirectoryReads`): a page of persons or of
 * collections in id order, after a cursor, on the (node_kind, id) index. Who may read them is
 * the use case's business (packages/access/src/directory.ts); the read filter is applied here.
 */
export class PostgresDirectoryReads implements DirectoryReads {
  constructor(private readonly db: Db) {}

  async persons(page: { limit: number; after?: string }): Promise<PersonEntry[]> {
    const rows = await this.db
      .selectFrom('nodes as n')
      .select([
        'n.id',
        'n.title as name',
        'n.created_at',
        sql<boolean>`exists (select 1 from system_admins s where s.node_id = n.id)`.as('admin'),
        sql<Array<{ issuer: string; subject: string }>>`coalesce((
          select json_agg(json_build_object('issuer', i.issuer, 'subject', i.subject) order by i.created_at, i.issuer, i.subject)
          from auth_identities i where i.node_id = n.id), '[]')`.as('identities'),
      ])
      .where('n.node_kind', '=', 'person')
      .$if(page.after !== undefined, (q) => q.where('n.id', '>', page.after!))
      .orderBy('n.id')
      .limit(page.limit)
      .execute();
    return rows.map((r) => ({ id: r.id, name: r.name, admin: r.admin, identities: r.identities, created_at: r.created_at }));
  }

  async collections(viewerId: string | null, page: { limit: number; after?: string }): Promise<CollectionEntry[]> {
    return this.db
      .selectFrom('nodes as n')
      .select(['n.id', 'n.title', sql<string | null>`n.metadata #>> '{publication,slug}'`.as('publication'), 'n.created_at'])
      .where('n.node_kind', '=', 'collection')
      .$if(viewerId !== null, (q) => q.where(nodeVisibleTo(viewerId!, 'n')))
      .$if(page.after !== undefined, (q) => q.where('n.id', '>', page.after!))
      .orderBy('n.id')
      .limit(page.limit)
      .execute();
  }
}
