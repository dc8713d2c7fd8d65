import { sql, type Kysely } from 'kysely';
import type { AccessLevel, Actor, WriterLevel } from '@inntak/access';
import type { Database } from '../platform/index.js';
import { accessLevelOf, nodeVisibleTo } from './read-filter.js';

/**
 * The ports' `levelOn(actor, id)`: the node's kind and the actor's level on it from the access
 * matrix, through the read filter (the query requireLevel asks); undefined when the node does
 * not exist or the actor may not see it. The use case decides what that means (requireLevel, packages/access).
 */
export async function levelOn(db: Kysely<Database>, actor: Actor, nodeId: string): Promise<WriterLevel | undefined> {
  const callerId = actor.personId;
  const node = await db
    .selectFrom('nodes as n')
    .select('n.node_kind')
    .select(callerId === null ? sql<string | null>`null`.as('level') : accessLevelOf(callerId, 'n').as('level'))
    .where('n.id', '=', nodeId)
    .$if(callerId !== null && !actor.isAdmin, (q) => q.where(nodeVisibleTo(callerId!, 'n')))
    .executeTakeFirst();
  return node && { nodeKind: node.node_kind, level: node.level as AccessLevel | null };
}

/** A node's kind, whoever asks; undefined when there is no such node. */
export async function nodeKindOf(db: Kysely<Database>, nodeId: string): Promise<string | undefined> {
  const node = await db.selectFrom('nodes').select('node_kind').where('id', '=', nodeId).executeTakeFirst();
  return node?.node_kind;
}
