import { sql, type RawBuilder } from 'kysely';
import type { AccessLevel, AudienceFacts } from '@inntak/access';
import type { Visibility } from '@inntak/graph';

/**
 * The one place reads are filtered by the caller's access (the SQL side of
 * packages/access/src/read-rules.ts). Every read path — /query/nodes, the admin listings, the
 * realtime stream's snapshot — composes these fragments instead of writing its own check.
 */

/** True when the caller has access to node `alias`: creator or an access-matrix row. */
export function hasAccess(callerId: string, alias = 'n'): RawBuilder<boolean> {
  const node = sql.table(alias);
  return sql<boolean>`(${node}.created_by = ${callerId} or exists (
    select 1 from node_access acc where acc.object_id = ${node}.id and acc.subject_id = ${callerId}))`;
}

/** True when the caller may see node `alias` at all (in full or as a discoverable summary). */
export function nodeVisibleTo(callerId: string, alias = 'n'): RawBuilder<boolean> {
  return sql<boolean>`(${sql.table(alias)}.visibility <> 'hidden' or ${hasAccess(callerId, alias)})`;
}

/**
 * True when the caller sees node `alias` whole (read-rules.ts `viewOf` = full): creator, an
 * access row, or a readable/open node. A node visible to the caller but not this way is seen
 * as a summary.
 */
export function fullViewOf(callerId: string, alias = 'n'): RawBuilder<boolean> {
  return sql<boolean>`(${sql.table(alias)}.visibility in ('readable', 'open') or ${hasAccess(callerId, alias)})`;
}

/** True when the caller sees node `alias` only as a summary (discoverable, no access). */
export function summaryViewOf(callerId: string, alias = 'n'): RawBuilder<boolean> {
  return sql<boolean>`(${sql.table(alias)}.visibility = 'discoverable' and not ${hasAccess(callerId, alias)})`;
}

/** The caller's access level on node `alias`, or null. */
export function accessLevelOf(callerId: string, alias = 'n'): RawBuilder<string | null> {
  return sql<string | null>`(select acc.access::text from node_access acc
    where acc.object_id = ${sql.table(alias)}.id and acc.subject_id = ${callerId})`;
}

/**
 * True when the caller may see edge `alias` (read-rules.ts `edgeViewOf` is the twin):
 * - a granting edge (owner, member_of: one row of the access matrix) only by its subject and
 *   by those who administer its object;
 * - a system edge when the caller has access to one endpoint and may see the other;
 * - any other edge when the caller may see both endpoints: an edge never reveals a node the
 *   caller may not see.
 */
export function edgeVisibleTo(callerId: string, alias = 'e'): RawBuilder<boolean> {
  const edge = sql.table(alias);
  const endpoint = (column: 'source_id' | 'target_id', test: (a: string) => RawBuilder<boolean>) =>
    sql<boolean>`exists (select 1 from nodes ep where ep.id = ${edge}.${sql.ref(column)} and ${test('ep')})`;
  const seen = (a: string) => nodeVisibleTo(callerId, a);
  const accessed = (a: string) => hasAccess(callerId, a);
  return sql<boolean>`(case
    when access_granted_by(${edge}.edge_type, ${edge}.metadata) is not null
      then ${edge}.source_id = ${callerId} or exists (select 1 from node_access acc
        where acc.object_id = ${edge}.target_id and acc.subject_id = ${callerId} and acc.access >= 'admin')
    when ${edge}.system
      then (${endpoint('source_id', accessed)} and ${endpoint('target_id', seen)})
        or (${endpoint('target_id', accessed)} and ${endpoint('source_id', seen)})
    else ${endpoint('source_id', seen)} and ${endpoint('target_id', seen)} end)`;
}

/** True when the caller's access-matrix level on node `alias` is at least `level` (admin listings). */
export function hasAccessAtLeast(callerId: string, level: AccessLevel, alias = 'n'): RawBuilder<boolean> {
  return sql<boolean>`exists (select 1 from node_access acc
    where acc.object_id = ${sql.table(alias)}.id and acc.subject_id = ${callerId} and acc.access >= ${level}::access_level)`;
}

/**
 * The facts the audience of node `alias` is computed from (creator, visibility, access rows),
 * as JSON: the input of packages/access/src/audience.ts, which inverts the checks above. The
 * same SQL function fills delete notifications (db/migrations/004.do.realtime.sql), so live
 * and deleted rows are judged from the same facts.
 */
export function audienceFacts(nodeIdColumn: string): RawBuilder<AudienceFacts | null> {
  return sql<AudienceFacts | null>`inntak_node_audience_facts(${sql.ref(nodeIdColumn)})`;
}

/**
 * The set nodeVisibleTo admits, split into three disjoint parts so a listing can read each from
 * an index that yields it in id order and stop after a page, instead of testing every node:
 * the non-hidden nodes; hidden nodes the caller created; hidden nodes someone else created that
 * the caller has an access-matrix row on (driven from node_access's primary key).
 */
export interface VisiblePart {
  /** The visibilities this part can hold: a query filtering on others skips it. */
  visibilities: readonly Visibility[];
  /** FROM items binding the node to the alias given. */
  from: RawBuilder<unknown>;
  where: RawBuilder<boolean>;
  /** An expression equal to the node's id whose order this part's index yields. */
  orderKey: RawBuilder<string>;
}

export function visibleNodeParts(callerId: string, alias = 'n'): VisiblePart[] {
  const node = sql.table(alias);
  return [
    {
      visibilities: ['discoverable', 'readable', 'open'],
      from: sql`nodes ${node}`,
      where: sql<boolean>`${node}.visibility <> 'hidden'`,
      orderKey: sql<string>`${node}.id`,
    },
    {
      visibilities: ['hidden'],
      from: sql`nodes ${node}`,
      where: sql<boolean>`${node}.visibility = 'hidden' and ${node}.created_by = ${callerId}`,
      orderKey: sql<string>`${node}.id`,
    },
    {
      visibilities: ['hidden'],
      from: sql`node_access acc join nodes ${node} on ${node}.id = acc.object_id`,
      where: sql<boolean>`acc.subject_id = ${callerId} and ${node}.visibility = 'hidden'
        and ${node}.created_by is distinct from ${callerId}`,
      orderKey: sql<string>`acc.object_id`,
    },
  ];
}
