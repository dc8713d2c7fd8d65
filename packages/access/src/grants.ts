import { AppError } from '@inntak/core';
import type { Actor } from './identity.js';
import { ACCESS_LEVELS, grants, isAccessLevel, type AccessLevel } from './levels.js';

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
 * The cap of a `belongs_to` edge X → C: the rows C passes down to X are lowered to the level
 * the edge's maker held on X when making it (recorded in `metadata.max_access`). Without it, an
 * admin of X linking X → C would make C's owners — themselves among them — owners of X: a
 * write must never give anyone more than its maker could grant (docs/access.md). An owner (or
 * a system administrator) passes rows on unlowered. The SQL twin is inntak_inherited_access()
 * in db/migrations/007.do.security.sql.
 */
export function belongsToCap(makerLevel: AccessLevel): Record<string, unknown> {
  return makerLevel === 'owner' ? {} : { max_access: makerLevel };
}

/** A row `level` passed down a belongs_to edge with `metadata`, after its cap. */
export function inheritedLevel(level: AccessLevel, metadata: Record<string, unknown>): AccessLevel {
  const cap = metadata.max_access;
  if (!isAccessLevel(cap)) return level;
  return ACCESS_LEVELS[Math.min(ACCESS_LEVELS.indexOf(level), ACCESS_LEVELS.indexOf(cap))]!;
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
