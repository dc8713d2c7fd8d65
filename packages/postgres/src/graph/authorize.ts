import { sql, type Kysely } from 'kysely';
import { AppError } from '@inntak/core';
import { effectiveLevel, meets, type AccessLevel, type Actor } from '@inntak/access';
import type { Database } from '../platform/index.js';
import { accessLevelOf, nodeVisibleTo } from './read-filter.js';

export interface NodeForWrite {
  id: string;
  node_kind: string;
  level: AccessLevel | null;
}

/**
 * Loads a node an actor wants to write to, with the actor's level on it, through the read
 * filter: a node the actor may not see answers 404 (its existence is not revealed), a visible
 * node without the required level answers 403. `field` names the request field in the 404.
 */
export async function requireLevel(
  db: Kysely<Database>,
  actor: Actor,
  nodeId: string,
  required: AccessLevel | null,
  field: string,
): Promise<NodeForWrite> {
  const callerId = actor.personId;
  const node = await db
    .selectFrom('nodes as n')
    .select(['n.id', 'n.node_kind'])
    .select(callerId === null ? sql<string | null>`null`.as('level') : accessLevelOf(callerId, 'n').as('level'))
    .where('n.id', '=', nodeId)
    .$if(callerId !== null && !actor.isAdmin, (q) => q.where(nodeVisibleTo(callerId!, 'n')))
    .executeTakeFirst();
  if (!node) throw new AppError('not_found', { detail: field });
  const level = effectiveLevel(actor, node.level as AccessLevel | null);
  if (!meets(level, required)) throw new AppError('forbidden');
  return { id: node.id, node_kind: node.node_kind, level };
}

/**
 * The subject of a grant only has to exist: person nodes are hidden, yet an admin names the
 * person they add (by the id the person reads from /me).
 */
export async function requireSubject(db: Kysely<Database>, nodeId: string, field: string): Promise<void> {
  const node = await db.selectFrom('nodes').select('id').where('id', '=', nodeId).executeTakeFirst();
  if (!node) throw new AppError('not_found', { detail: field });
}
