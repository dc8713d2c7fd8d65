import { sql } from 'kysely';
import type { AccessLevel, Actor } from '@inntak/access';
import type { CollectionEntry, MemberEntry, PersonEntry } from '@inntak/studio';
import type { Db } from '../platform/index.js';
import { accessLevelOf, hasAccess } from '../graph/index.js';

/**
 * The console's collection reads (packages/studio collection-reads.ts): each filtered by the
 * caller's access rows (a system administrator sees all) and bounded.
 */
function collectionQuery(db: Db, actor: Actor) {
  const callerId = actor.personId;
  return db
    .selectFrom('nodes as n')
    .select([
      'n.id',
      'n.title',
      callerId === null ? sql<AccessLevel | null>`null`.as('level') : accessLevelOf(callerId, 'n').as('level'),
      sql<boolean>`n.metadata ? 'publication'`.as('publication'),
    ])
    .where('n.node_kind', '=', 'collection')
    .$if(!actor.isAdmin, (q) => q.where(callerId === null ? sql<boolean>`false` : hasAccess(callerId, 'n')));
}

export function collections(db: Db, actor: Actor, limit: number): Promise<CollectionEntry[]> {
  return collectionQuery(db, actor).orderBy(sql`n.title nulls last`).orderBy('n.id').limit(limit).execute() as Promise<CollectionEntry[]>;
}

export function collection(db: Db, actor: Actor, collectionId: string): Promise<CollectionEntry | undefined> {
  return collectionQuery(db, actor).where('n.id', '=', collectionId).executeTakeFirst() as Promise<CollectionEntry | undefined>;
}

const SUBJECTS = sql<string[]>`coalesce((select array_agg(ai.subject order by ai.subject) from (select subject from auth_identities where node_id = p.id limit 5) ai), '{}')`;

export async function members(db: Db, collectionId: string, limit: number): Promise<MemberEntry[]> {
  // The level each person's own grant edges give (access_granted_by, as grant_access writes them);
  // two edges of one person (an old member_of beside an owner) show as the stronger.
  const { rows } = await sql<MemberEntry>`
    select p.id as "personId", p.title as name, ${SUBJECTS} as subjects, max(access_granted_by(e.edge_type, e.metadata))::text as level
    from edges e join nodes p on p.id = e.source_id and p.node_kind = 'person'
    where e.target_id = ${collectionId} and access_granted_by(e.edge_type, e.metadata) is not null
    group by p.id, p.title
    order by max(access_granted_by(e.edge_type, e.metadata)) desc, p.title nulls last, p.id
    limit ${limit}`.execute(db);
  return rows;
}

export async function persons(db: Db, actor: Actor, search: string, limit: number): Promise<PersonEntry[]> {
  const text = search.trim();
  if (text === '') return [];
  const callerId = actor.personId;
  // By name: persons whose grant edges the caller may see (edgeVisibleTo: those who hold a level
  // on a node the caller administers); by exact subject or id: anyone, as grant_access takes an id.
  const seen = actor.isAdmin
    ? sql<boolean>`true`
    : callerId === null
      ? sql<boolean>`false`
      : sql<boolean>`exists (select 1 from node_access mine join node_access theirs on theirs.object_id = mine.object_id
          where mine.subject_id = ${callerId} and mine.access >= 'admin' and theirs.subject_id = p.id)`;
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const isId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text);
  const { rows } = await sql<PersonEntry>`
    select p.id, p.title as name, ${SUBJECTS} as subjects
    from nodes p
    where p.node_kind = 'person' and (
      (p.title ilike ${pattern} and ${seen})
      or exists (select 1 from auth_identities ai where ai.node_id = p.id and ai.subject = ${text})
      ${isId ? sql`or p.id = ${text}::uuid` : sql``})
    order by p.title nulls last, p.id
    limit ${limit}`.execute(db);
  return rows;
}
