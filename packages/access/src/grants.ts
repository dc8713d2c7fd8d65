import { AppError } from '@inntak/core';
import type { Actor } from './identity.js';
import { grants, type AccessLevel } from './levels.js';

/**
 * The access matrix's write rules (docs/access.md is the prose version).
 * - an `owner` edge person → node grants `owner` on the node;
 * - a `member_of` edge person → node grants `member`, or the level in its metadata.access
 *   (grant_access writes reader/member/admin this way);
 * - a `belongs_to` edge X → C copies C's rows to X (packages/postgres/src/graph/access-propagation.ts).
 * The SQL twin of levelGrantedBy is access_granted_by() in db/migrations/002.do.access.sql.
 */
export function levelGrantedBy(edgeType: string, metadata: Record<string, unknown>): AccessLevel | null {
  if (edgeType === 'owner') return 'owner';
  if (edgeType !== 'member_of') return null;
  const level = metadata.access;
  return level === 'reader' || level === 'admin' ? level : 'member';
}

/** The granting edge grant_access makes for a level. */
export function grantingEdge(level: AccessLevel): { edge_type: 'owner' | 'member_of'; metadata: Record<string, unknown> } {
  if (level === 'owner') return { edge_type: 'owner', metadata: {} };
  return { edge_type: 'member_of', metadata: level === 'member' ? {} : { access: level } };
}

export const GRANTING_EDGE_TYPES = ['owner', 'member_of'] as const;

/** The actor's level on a node for write checks: a system administrator holds `owner` everywhere. */
export function effectiveLevel(actor: Actor, level: AccessLevel | null): AccessLevel | null {
  return actor.isAdmin ? 'owner' : level;
}

/** The level an actor must hold on a node to grant (or revoke) `level` on it. */
export function levelToGrant(level: AccessLevel): AccessLevel {
  return level === 'owner' ? 'owner' : 'admin';
}

/**
 * What an actor must hold on an edge's endpoints to create or delete it:
 * - a granting edge is a grant: `levelToGrant` on the target;
 * - `belongs_to` shares the source with the target's members: admin on the source, member on
 *   the target;
 * - any other edge: member on the source; the target only needs to be visible.
 */
export function edgeRequirement(edgeType: string, metadata: Record<string, unknown>): { source: AccessLevel | null; target: AccessLevel | null } {
  const granted = levelGrantedBy(edgeType, metadata);
  if (granted) return { source: null, target: levelToGrant(granted) };
  if (edgeType === 'belongs_to') return { source: 'admin', target: 'member' };
  return { source: 'member', target: null };
}

/** True when `held` meets `required` (no requirement is always met). */
export function meets(held: AccessLevel | null, required: AccessLevel | null): boolean {
  return required === null || grants(held, required);
}

/**
 * Operations on no graph object (job and resource admin, metrics) are for system
 * administrators only. The route calls this before any work.
 */
export function requireSystemAdmin(actor: Actor): void {
  if (!actor.isAdmin) throw new AppError('forbidden', { detail: 'kun for systemadministratorer' });
}

/**
 * Node kinds `create_node` never makes: each has its own operation (webhook, collection, tag),
 * is made by an operator (person) or by the service (media: its file is the service's), because
 * making one has consequences a plain node has not.
 */
export const RESERVED_NODE_KINDS = ['webhook', 'collection', 'person', 'tag', 'media'] as const;

export function requireCreatableKind(kind: string): void {
  if ((RESERVED_NODE_KINDS as readonly string[]).includes(kind)) {
    throw new AppError('invalid_input', { detail: `node_kind: ${kind} lages med sin egen operasjon` });
  }
}
