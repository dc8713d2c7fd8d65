import { AppError } from '@inntak/core';
import type { Actor } from './identity.js';
import { ACCESS_LEVELS, type AccessLevel } from './levels.js';

/**
 * The write policy (issue 22): who may create and delete each edge type, who may make and
 * change each node kind. Every write path — the API's intentions, an orchestration's actions,
 * the CLI — asks these tables; the checks themselves (requireLevel, with its row locks) stay in
 * the transaction that writes. docs/access.md ("Write policy") holds the table writePolicyMarkdown()
 * prints, and a test keeps the two equal; another test fails when the database or the code knows
 * an edge type or node kind that has no row here.
 */

/**
 * What an actor must hold on one end of an edge: a level, `exists` (the node only has to exist:
 * a grant's subject, a person node nobody can read), or null (nothing: a tag, owned by nobody).
 */
export type EndNeed = AccessLevel | 'exists' | null;
export interface EdgeEnds {
  source: EndNeed;
  target: EndNeed;
}

export interface EdgeRule {
  /** The operations that make it. `create_edge` is the generic one. */
  createdBy: readonly string[];
  /** What making it needs on each end. */
  create: EdgeEnds;
  /** Further conditions of making it, checked by the operation that makes it (in words, for the docs). */
  createAlso?: string;
  /** The operations that delete it. `delete_edge` is the generic one. */
  deletedBy: readonly string[];
  /** What deleting it needs on each end (often what making it needs). */
  delete: EdgeEnds;
  /**
   * Who may also delete it: whoever holds this level on either end, so an owner can always clear
   * what others attached to their node. null: nobody else.
   */
  cleanup: AccessLevel | null;
  /** Further conditions of deleting it (in words, for the docs). */
  deleteAlso?: string;
  /** The operations that change it in place (its metadata), and what they need on each end. */
  changedBy?: readonly string[];
  change?: EdgeEnds;
  /**
   * For an edge that puts its target on the public pages of a published source (has_media): the
   * level its maker must hold on the target and on every node the target belongs_to — what
   * publishing it would take. Checked when it is drawn from a published node, and by the pages
   * whenever they serve the target, against the maker's rights then, so it ends with them. The
   * target's own owner edge (the target belongs to the source alone) needs nothing more: publishing
   * the source published it. (Issue 35, finding 1.)
   */
  publishes?: AccessLevel;
}

/** The row for any edge type not named in EDGE_RULES (user-defined types). */
export const OTHER_EDGE_TYPE = '*';

const GENERIC = ['create_edge'] as const;
const GENERIC_DELETE = ['delete_edge'] as const;
const MEMBER_BOTH: EdgeEnds = { source: 'member', target: 'member' };

/**
 * One row per edge type. A node of a kind with `edges` in NODE_KIND_RULES (an orchestration)
 * raises what either end needs to that level, except for the cleanup rule (removing what others
 * attached to your node narrows, never widens).
 */
export const EDGE_RULES: Readonly<Record<string, EdgeRule>> = {
  owner: {
    createdBy: ['grant_access', 'create_edge', 'create_node', 'create_collection', 'create_publication'],
    create: { source: 'exists', target: 'owner' },
    deletedBy: ['revoke_access', 'grant_access', 'delete_edge'],
    delete: { source: 'exists', target: 'owner' },
    cleanup: null,
    deleteAlso: 'revoke_access and grant_access keep the last owner (409)',
  },
  member_of: {
    createdBy: ['grant_access', 'create_edge'],
    create: { source: 'exists', target: 'admin' },
    deletedBy: ['revoke_access', 'grant_access', 'delete_edge'],
    delete: { source: 'exists', target: 'admin' },
    cleanup: null,
  },
  belongs_to: {
    createdBy: ['create_edge', 'create_node (collection_id)', 'intake, create_webhook, replay_delivery, media (service, system edges)'],
    create: { source: 'admin', target: 'member' },
    createAlso: 'no cycle, at most 32 levels (409); carries the maker’s cap (max_access)',
    deletedBy: GENERIC_DELETE,
    delete: { source: 'admin', target: 'member' },
    cleanup: 'admin',
  },
  observes: {
    createdBy: GENERIC,
    create: { source: 'admin', target: 'member' },
    createAlso: 'the source is an orchestration, which sees what its creator reads: admin on it (issue 22, finding 1); the target of an observable kind',
    deletedBy: GENERIC_DELETE,
    delete: { source: 'admin', target: 'member' },
    cleanup: 'admin',
    deleteAlso: 'never an orchestration’s last observes edge (409): without one it would match everything its creator reads',
  },
  tagged: {
    createdBy: ['tag_node', 'create_edge'],
    create: { source: 'member', target: null },
    createAlso: 'the target is a tag: a public label owned by nobody',
    deletedBy: GENERIC_DELETE,
    delete: { source: 'member', target: null },
    cleanup: 'admin',
  },
  has_media: {
    createdBy: ['the media service (tts_generate, render_mix, POST /media; a system edge)', 'create_edge'],
    create: MEMBER_BOTH,
    deletedBy: GENERIC_DELETE,
    delete: MEMBER_BOTH,
    cleanup: 'admin',
    deleteAlso: 'a system edge: admin on its target',
    publishes: 'admin',
  },
  host_of: {
    createdBy: GENERIC,
    create: MEMBER_BOTH,
    deletedBy: GENERIC_DELETE,
    delete: MEMBER_BOTH,
    cleanup: 'admin',
  },
  published_in: {
    createdBy: ['publish_article', 'inntak publish'],
    create: { source: 'admin', target: 'admin' },
    createAlso: 'the node (source) publishable, and admin on every collection it belongs_to',
    deletedBy: ['unpublish_article', 'unpublish_node'],
    delete: { source: null, target: 'admin' },
    cleanup: 'admin',
    deleteAlso: 'the node’s admins (its collections’ admins among them) may always unpublish it',
  },
  front_page_variant: {
    createdBy: ['create_variant'],
    create: { source: 'admin', target: null },
    changedBy: ['update_variant', 'ab_override', 'pause_ab_test', 'resume_ab_test'],
    change: { source: 'admin', target: null },
    createAlso: 'the source is a publication the target is published in',
    deletedBy: ['remove_variant', 'delete_edge'],
    delete: { source: 'admin', target: null },
    cleanup: null,
    deleteAlso: 'only whoever may make one (its ab_events go with it)',
  },
  [OTHER_EDGE_TYPE]: {
    createdBy: GENERIC,
    create: MEMBER_BOTH,
    createAlso: 'member on the target is its consent',
    deletedBy: GENERIC_DELETE,
    delete: MEMBER_BOTH,
    cleanup: 'admin',
  },
};

/** The rule for an edge type (the `*` row for a type without its own). */
export function edgeRule(edgeType: string): EdgeRule {
  return Object.hasOwn(EDGE_RULES, edgeType) ? EDGE_RULES[edgeType]! : EDGE_RULES[OTHER_EDGE_TYPE]!;
}

/** Who may do something to a node of a kind: at least a level on it, or a system administrator only. */
export type NodeNeed = AccessLevel | 'system_admin';

export interface NodeKindRule {
  /** How nodes of the kind are made. */
  createdBy: readonly string[];
  /** Whether create_node makes it, and for whom (`never`: only its own operation). */
  createNode: 'anyone' | 'system_admin' | 'never';
  /** Whether an orchestration's create_node makes it (as its creator, who must meet createNode). */
  orchestrationCreates: boolean;
  /** Who may change its metadata (settings) and content, whoever asks. */
  write: NodeNeed;
  /** Whether an orchestration's set_metadata may (as its creator, who must meet `write`). */
  setMetadata: boolean;
  /** Metadata keys only the kind's own operations change (set_metadata refuses them). */
  ownKeys?: readonly string[];
  /** Those operations (they ask `write` like set_metadata). */
  ownKeysChangedBy?: readonly string[];
  /** The level a node of this kind needs for any edge at it (besides the edge's rule); null: none. */
  edges: AccessLevel | null;
  /** Whether publish_article may publish it. */
  publishable: boolean;
  /**
   * Whether an `observes` edge may point at it. Not at nodes the service deletes (media, a
   * webhook): the edge would go with them and leave the orchestration observing nothing, which
   * matches everything its creator reads.
   */
  observable: boolean;
}

/** The row for any node kind not named in NODE_KIND_RULES (content and user-defined kinds). */
export const OTHER_NODE_KIND = '*';

const CONTENT: NodeKindRule = { createdBy: ['create_node', 'intake', 'replay_delivery (the webhook’s admins)'], createNode: 'anyone', orchestrationCreates: true, write: 'member', setMetadata: true, edges: null, publishable: true, observable: true };

export const NODE_KIND_RULES: Readonly<Record<string, NodeKindRule>> = {
  content: CONTENT,
  communication: CONTENT,
  melding: CONTENT,
  collection: {
    createdBy: ['create_collection', 'create_publication', 'inntak collection add', 'inntak publication add'],
    createNode: 'never',
    orchestrationCreates: false,
    write: 'admin',
    setMetadata: true,
    ownKeys: ['publication'],
    ownKeysChangedBy: ['update_publication'],
    edges: null,
    publishable: false,
    observable: true,
  },
  orchestration: {
    createdBy: ['create_node (trigger and script checked)', 'inntak orchestration add'],
    // Changed only by update_orchestration, set_orchestration_enabled, delete_orchestration (issue 27), with `write` on it.
    createNode: 'anyone',
    orchestrationCreates: false,
    write: 'admin',
    setMetadata: false,
    edges: 'admin',
    publishable: false,
    observable: true,
  },
  webhook: {
    createdBy: ['create_webhook', 'inntak webhook add'],
    createNode: 'never',
    orchestrationCreates: false,
    write: 'admin',
    setMetadata: false,
    edges: null,
    publishable: false,
    observable: false,
  },
  cli_tool: {
    createdBy: ['create_node'],
    createNode: 'system_admin',
    orchestrationCreates: true,
    write: 'system_admin',
    setMetadata: true,
    edges: null,
    publishable: false,
    observable: true,
  },
  media: {
    createdBy: ['the media service (tts_generate, render_mix, POST /media)'],
    createNode: 'never',
    orchestrationCreates: false,
    write: 'system_admin',
    setMetadata: false,
    edges: null,
    publishable: false,
    observable: false,
  },
  person: { createdBy: ['inntak person add'], createNode: 'never', orchestrationCreates: false, write: 'system_admin', setMetadata: false, edges: null, publishable: false, observable: true },
  tag: { createdBy: ['tag_node'], createNode: 'never', orchestrationCreates: false, write: 'system_admin', setMetadata: false, edges: null, publishable: false, observable: true },
  [OTHER_NODE_KIND]: CONTENT,
};

export function nodeKindRule(kind: string): NodeKindRule {
  return Object.hasOwn(NODE_KIND_RULES, kind) ? NODE_KIND_RULES[kind]! : NODE_KIND_RULES[OTHER_NODE_KIND]!;
}

/** The stronger of two needs on an end (null and `exists` are the weakest). */
function stronger(need: EndNeed, floor: AccessLevel | null): EndNeed {
  if (floor === null) return need;
  if (need === null || need === 'exists') return floor;
  return ACCESS_LEVELS.indexOf(need) >= ACCESS_LEVELS.indexOf(floor) ? need : floor;
}

/** What one end needs once its node's kind is known: the edge's rule, raised to the kind's `edges` level. */
export function endNeed(need: EndNeed, nodeKind: string): EndNeed {
  return need === null ? null : stronger(need, nodeKindRule(nodeKind).edges);
}

/**
 * The ways an actor may delete an edge, any one enough, the first the one whose refusal is
 * answered: the rule (a system edge: admin on its target), then admin (cleanup) on either end.
 */
export function deleteAlternatives(edge: { edge_type: string; system: boolean }): Array<EdgeEnds & { cleanup: boolean }> {
  const rule = edgeRule(edge.edge_type);
  const first = edge.system ? { source: null, target: 'admin' as const } : rule.delete;
  const ways = [{ ...first, cleanup: false }];
  if (rule.cleanup) ways.push({ source: rule.cleanup, target: null, cleanup: true }, { source: null, target: rule.cleanup, cleanup: true });
  return ways;
}

/** 400 unless `operation` is among those that make (or delete) the edge type. */
export function requireEdgeOperation(edgeType: string, operation: 'create_edge' | 'delete_edge'): void {
  const rule = edgeRule(edgeType);
  const by = operation === 'create_edge' ? rule.createdBy : rule.deletedBy;
  if (!by.includes(operation)) {
    throw new AppError('invalid_input', { detail: `edge_type: ${edgeType} ${operation === 'create_edge' ? 'lages' : 'fjernes'} med ${(operation === 'create_edge' ? rule.createdBy : rule.deletedBy)[0]}` });
  }
}

/**
 * create_node of `kind` by `actor`, from the API or an orchestration: 400 for a kind made by its
 * own operation, 403 for one only a system administrator registers (cli_tool).
 */
export function requireCreateNode(actor: Actor, kind: string, via: 'api' | 'orchestration'): void {
  const rule = nodeKindRule(kind);
  if (rule.createNode === 'never' || (via === 'orchestration' && !rule.orchestrationCreates)) {
    const detail = via === 'orchestration' ? `node_kind: ${kind} kan ikke lages av en orkestrering` : `node_kind: ${kind} lages med sin egen operasjon`;
    throw new AppError('invalid_input', { detail });
  }
  if (rule.createNode === 'system_admin' && !actor.isAdmin) {
    throw new AppError('forbidden', { detail: `node_kind: bare en systemadministrator kan registrere ${kind}` });
  }
}

/**
 * What changing the metadata of a node of `kind` needs (set_metadata of `key`): the level to
 * check on the node, after the system-administrator-only kinds are refused to everyone else (403)
 * and the kinds whose metadata only their own operations change (400).
 */
export function metadataWriteNeed(actor: Actor, kind: string, key: string | null): AccessLevel {
  const rule = nodeKindRule(kind);
  if (!rule.setMetadata) throw new AppError('invalid_input', { detail: `node_id: metadata på ${kind} endres ikke av en orkestrering` });
  if (key !== null && rule.ownKeys?.includes(key)) throw new AppError('invalid_input', { detail: `key: ${key} på ${kind} endres bare med sin egen operasjon` });
  if (rule.write === 'system_admin') {
    if (!actor.isAdmin) throw new AppError('forbidden', { detail: `node_id: bare en systemadministrator kan endre ${kind}` });
    return 'owner';
  }
  return rule.write;
}

/** 400 for an `observes` edge to a node of a kind that is not observable. */
export function requireObservable(kind: string, field: string): void {
  if (!nodeKindRule(kind).observable) throw new AppError('invalid_input', { detail: `${field}: en ${kind} kan ikke observeres; den kan slettes, og da ville orkestreringen matche alt` });
}

/** 400 for a kind publish_article never publishes (its settings or script would be on a public page). */
export function requirePublishable(kind: string, field: string): void {
  if (!nodeKindRule(kind).publishable) throw new AppError('invalid_input', { detail: `${field}: en ${kind} kan ikke publiseres` });
}

/** The 409 detail for deleting an orchestration's last observes edge. */
export const LAST_OBSERVES_DETAIL = 'en orkestrering må observere minst én node; slett orkestreringen i stedet';

function needText(need: EndNeed): string {
  return need === null ? '–' : need === 'exists' ? 'exists' : need;
}

function publishesText(level: AccessLevel): string {
  return `public pages: from a published node it counts only while its maker holds ${level} on the target and on every node the target belongs_to (checked when drawn from a published node, and when served), unless the target belongs to the source alone`;
}

/** The tables as markdown, for docs/access.md ("Write policy"). */
export function writePolicyMarkdown(): string {
  const lines = [
    '| Edge type | Made by | Create: source / target | Deleted by | Delete: source / target | Or admin (cleanup) on either end | Also |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const [type, r] of Object.entries(EDGE_RULES)) {
    const also = [
      r.createAlso && `create: ${r.createAlso}`,
      r.deleteAlso && `delete: ${r.deleteAlso}`,
      r.changedBy && r.change && `changed by ${r.changedBy.join(', ')}: ${needText(r.change.source)} / ${needText(r.change.target)}`,
      r.publishes && publishesText(r.publishes),
    ]
      .filter(Boolean)
      .join('; ');
    lines.push(
      `| \`${type}\` | ${r.createdBy.join(', ')} | ${needText(r.create.source)} / ${needText(r.create.target)} | ${r.deletedBy.join(', ')} | ${needText(r.delete.source)} / ${needText(r.delete.target)} | ${r.cleanup ? 'yes' : 'no'} | ${also || '–'} |`,
    );
  }
  lines.push(
    '',
    '| Node kind | Made by | create_node | By an orchestration | Metadata and content: who | set_metadata | Own keys | Any edge at it needs | Publishable | Observable |',
    '|---|---|---|---|---|---|---|---|---|---|',
  );
  for (const [kind, r] of Object.entries(NODE_KIND_RULES)) {
    lines.push(
      `| \`${kind}\` | ${r.createdBy.join(', ')} | ${r.createNode} | ${r.orchestrationCreates ? 'yes' : 'no'} | ${r.write} | ${r.setMetadata ? 'yes' : 'no'} | ${r.ownKeys ? `${r.ownKeys.join(', ')}${r.ownKeysChangedBy ? ` (${r.ownKeysChangedBy.join(', ')})` : ''}` : '–'} | ${r.edges ?? '–'} | ${r.publishable ? 'yes' : 'no'} | ${r.observable ? 'yes' : 'no'} |`,
    );
  }
  return lines.join('\n');
}
