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
 * What an actor must hold on an edge's endpoints to create it:
 * - a granting edge is a grant: `levelToGrant` on the target;
 * - `belongs_to` shares the source with the target's members: admin on the source, member on
 *   the target;
 * - any other edge: member on the source, and member on the target — the target's consent, so
 *   nobody attaches edges (and their metadata) to a node whose owner never let them in.
 * Every new edge type follows the last rule unless it is added here with a reason.
 */
export function edgeRequirement(edgeType: string, metadata: Record<string, unknown>): { source: AccessLevel | null; target: AccessLevel | null } {
  const granted = levelGrantedBy(edgeType, metadata);
  if (granted) return { source: null, target: levelToGrant(granted) };
  if (edgeType === 'belongs_to') return { source: 'admin', target: 'member' };
  if ((OPEN_TARGET_EDGE_TYPES as readonly string[]).includes(edgeType)) return { source: 'member', target: null };
  return { source: 'member', target: 'member' };
}

/**
 * Edge types whose target is a shared public label owned by nobody (a tag node, docs/graph.md):
 * nobody could ever consent for it, and linking to it shows nothing of anyone's. Only the
 * source is checked.
 */
export const OPEN_TARGET_EDGE_TYPES = ['tagged'] as const;

/**
 * Who may delete an edge besides those who could create it: for an edge that grants nothing,
 * whoever holds admin on either endpoint, so an owner can always clear what others attached to
 * their node. Granting edges keep the grant rule (levelToGrant on the target).
 */
export const EDGE_CLEANUP_LEVEL: AccessLevel = 'admin';

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

/**
 * Node kinds `create_node` never makes: each has its own operation (webhook, collection, tag),
 * is made by an operator (person) or by the service (media: its file is the service's), because
 * making one has consequences a plain node has not.
 */
export const RESERVED_NODE_KINDS = ['webhook', 'collection', 'person', 'tag', 'media'] as const;

/**
 * Edge types the generic edge operations do not make: publishing's own operations make them,
 * with their own rule (admin on the publication). A `published_in` edge is also removed only by
 * `unpublish_article`: storage pruning honours it (docs/publishing.md).
 */
export const RESERVED_EDGE_TYPES = ['published_in', 'front_page_variant'] as const;

export function requireGenericEdge(edgeType: string, operation: 'create' | 'delete'): void {
  const reserved = operation === 'create' ? (RESERVED_EDGE_TYPES as readonly string[]).includes(edgeType) : edgeType === 'published_in';
  if (reserved) throw new AppError('invalid_input', { detail: `edge_type: ${edgeType} lages og fjernes med publiseringsoperasjonene` });
}

export function requireCreatableKind(kind: string): void {
  if ((RESERVED_NODE_KINDS as readonly string[]).includes(kind)) {
    throw new AppError('invalid_input', { detail: `node_kind: ${kind} lages med sin egen operasjon` });
  }
}
