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
  const node = await levelOn(db, actor, nodeId);
  if (!node) throw new AppError('not_found', { detail: field });
  const level = effectiveLevel(actor, node.level);
  if (!meets(level, required)) throw new AppError('forbidden');
  return { id: node.id, node_kind: node.node_kind, level };
}

/**
 * A node through the actor's read filter (the operator sees every node), with the level the
 * actor's access rows give on it (before a system administrator's override); undefined when the
 * actor cannot see it. The query behind requireLevel, for the domains' ports (MediaTx.levelOn).
 */
export async function levelOn(db: Kysely<Database>, actor: Actor, nodeId: string): Promise<NodeForWrite | undefined> {
  const callerId = actor.personId;
  const row = await db
    .selectFrom('nodes as n')
    .select(['n.id', 'n.node_kind'])
    .select(callerId === null ? sql<string | null>`null`.as('level') : accessLevelOf(callerId, 'n').as('level'))
    .where('n.id', '=', nodeId)
    .$if(callerId !== null && !actor.isAdmin, (q) => q.where(nodeVisibleTo(callerId!, 'n')))
    .executeTakeFirst();
  return row && { id: row.id, node_kind: row.node_kind, level: row.level as AccessLevel | null };
}

/**
 * The subject of a grant only has to exist: person nodes are hidden, yet an admin names the
 * person they add (by the id the person reads from /me).
 */
export async function requireSubject(db: Kysely<Database>, nodeId: string, field: string): Promise<void> {
  const node = await db.selectFrom('nodes').select('id').where('id', '=', nodeId).executeTakeFirst();
  if (!node) throw new AppError('not_found', { detail: field });
}
