import { sql } from 'kysely';
import type { AccessRow, AudienceFacts, Change, ChangeNotice, ChangeOp } from '@inntak/access';
import type { GraphEdge, GraphNode } from '@inntak/graph';
import type { Db } from '../platform/index.js';
import { audienceFacts } from '../graph/index.js';

/**
 * Turns a burst of change notices into changes with full rows and the facts their audience is
 * computed from: one query per table per burst. Inserts and updates are read as they are now
 * (a row deleted since is skipped: its delete notice follows); deletes bring their old row.
 */
export type { Change, ChangeOp };

type Payload = Record<string, unknown>;

export async function readChanges(db: Db, notices: ChangeNotice[]): Promise<Change[]> {
  const resolved = await resolveOverflow(db, notices);
  const live = (channel: string) => resolved.filter((n) => n.channel === channel && n.payload.op !== 'delete').map((n) => n.payload);

  const nodeIds = new Set(live('inntak_nodes').map((p) => p.id as string));
  const accessKeys = live('inntak_access').map((p) => [p.subject_id as string, p.object_id as string] as const);
  for (const [, object] of accessKeys) nodeIds.add(object);
  const edgeIds = [...new Set(live('inntak_edges').map((p) => p.id as string))];

  const [nodes, edges, access] = await Promise.all([
    nodeIds.size === 0
      ? []
      : db.selectFrom('nodes as n').selectAll('n').select(audienceFacts('n.id').as('facts')).where('n.id', 'in', [...nodeIds]).execute(),
    edgeIds.length === 0
      ? []
      : db
          .selectFrom('edges as e')
          .selectAll('e')
          .select([audienceFacts('e.source_id').as('source'), audienceFacts('e.target_id').as('target')])
          .where('e.id', 'in', edgeIds)
          .execute(),
    accessKeys.length === 0
      ? []
      : db
          .selectFrom('node_access as a')
          .selectAll('a')
          .where(
            sql<boolean>`(a.subject_id, a.object_id) in (select * from unnest(${accessKeys.map((k) => k[0])}::uuid[], ${accessKeys.map((k) => k[1])}::uuid[]))`,
          )
          .execute(),
  ]);
  const nodeById = new Map(nodes.map(({ facts, ...row }) => [row.id, { row: row as GraphNode, facts }]));
  const edgeById = new Map(edges.map(({ source, target, ...row }) => [row.id, { row: row as GraphEdge, source, target }]));
  const accessByKey = new Map(access.map((row) => [`${row.subject_id}/${row.object_id}`, row as AccessRow]));

  const changes: Change[] = [];
  for (const { channel, payload } of resolved) {
    const op = payload.op as ChangeOp;
    const at = new Date(payload.at as string).toISOString();
    if (channel === 'inntak_nodes') {
      if (op === 'delete') {
        changes.push({ table: 'nodes', op, at, row: withDate<GraphNode>(payload.old), facts: payload.facts as AudienceFacts | null });
        continue;
      }
      const found = nodeById.get(payload.id as string);
      if (found) changes.push({ table: 'nodes', op, at, ...found });
    } else if (channel === 'inntak_edges') {
      if (op === 'delete') {
        const { old, source, target } = payload as { old: Payload; source: AudienceFacts | null; target: AudienceFacts | null };
        changes.push({ table: 'edges', op, at, row: withDate<GraphEdge>(old), source, target });
        continue;
      }
      const found = edgeById.get(payload.id as string);
      if (found) changes.push({ table: 'edges', op, at, ...found });
    } else if (channel === 'inntak_access') {
      if (op === 'delete') {
        changes.push({ table: 'node_access', op, at, row: payload.old as AccessRow, object: payload.object as AudienceFacts | null, node: null });
        continue;
      }
      const row = accessByKey.get(`${payload.subject_id as string}/${payload.object_id as string}`);
      const object = nodeById.get(payload.object_id as string);
      if (row) changes.push({ table: 'node_access', op, at, row, object: object?.facts ?? null, node: object?.row ?? null });
    }
  }
  return changes;
}

/**
 * Notices too large for NOTIFY were parked in realtime_overflow; fetch them all at once. One
 * that is gone fails the burst, so the clients are told to resync.
 */
async function resolveOverflow(db: Db, notices: ChangeNotice[]): Promise<ChangeNotice[]> {
  const ids = notices.filter((n) => n.payload.overflow !== undefined).map((n) => String(n.payload.overflow));
  if (ids.length === 0) return notices;
  const rows = await db.selectFrom('realtime_overflow').select(['id', 'payload']).where('id', 'in', ids).execute();
  const byId = new Map(rows.map((r) => [String(r.id), r.payload]));
  return notices.map((n) => {
    if (n.payload.overflow === undefined) return n;
    const payload = byId.get(String(n.payload.overflow));
    // Pruned before we read it (this listener was stalled for minutes): the change is lost.
    if (!payload) throw new Error(`realtime_overflow row ${String(n.payload.overflow)} is gone`);
    return { channel: n.channel, payload };
  });
}

/** A row from to_jsonb has its timestamp as text; rows read with kysely have a Date. */
function withDate<T>(row: unknown): T {
  const value = row as Payload;
  return { ...value, created_at: new Date(value.created_at as string) } as T;
}
