import { sql } from 'kysely';
import { nodeForReader, viewOf, type AccessLevel } from '@inntak/access';
import type { GraphEdge, GraphNode, JsonObject } from '@inntak/graph';
import type { ActionName, EventRef, EventVariables, LogEntryView, LogStatus, OrchestrationToRun, StepRecord, Trigger } from '@inntak/orchestration';
import type { Db } from '../platform/index.js';
import { accessLevelOf, edgeVisibleTo } from '../graph/index.js';

/** The orchestration a job names, or undefined when it (or its creator) is gone. */
export async function loadOrchestration(db: Db, orchestrationId: string): Promise<OrchestrationToRun | undefined> {
  const row = await db
    .selectFrom('nodes as o')
    .select(['o.id', 'o.content', 'o.created_by', 'o.metadata'])
    .select(sql<boolean>`exists (select 1 from system_admins sa where sa.node_id = o.created_by)`.as('creator_is_admin'))
    .where('o.id', '=', orchestrationId)
    .where('o.node_kind', '=', 'orchestration')
    .executeTakeFirst();
  if (!row?.created_by) return undefined;
  return {
    id: row.id,
    script: row.content ?? '',
    trigger: (row.metadata.trigger as unknown as Trigger | undefined) ?? null,
    enabled: row.metadata.enabled !== false,
    actor: { personId: row.created_by, isAdmin: row.creator_is_admin },
  };
}

/**
 * The `{event.*}` variables, read now as the creator may read them (a node in full; an edge
 * through edgeVisibleTo, its endpoints as nodeForReader shows them), or a reason when the rows
 * are gone or no longer readable by the creator.
 */
export async function loadEventVariables(db: Db, readerId: string, ref: EventRef): Promise<{ event: EventVariables } | { skipped: string }> {
  if (ref.type === 'manual') return { event: { type: ref.type, input: ref.input ?? {} } };
  if (ref.type === 'schedule') return { event: { type: ref.type, scheduled_at: ref.scheduled_at ?? '' } };
  if (ref.type === 'node.created' || ref.type === 'node.updated') {
    const node = await readNodeAs(db, readerId, ref.id);
    if (!node || node.view !== 'full') return { skipped: 'Ikke kjørt: noden finnes ikke lenger, eller skaperen kan ikke lese den' };
    return { event: ref.type === 'node.created' ? { type: ref.type, node: node.json } : { type: ref.type, node: node.json, changes: ref.changes ?? [] } };
  }
  const edge = await db.selectFrom('edges as e').selectAll('e').where('e.id', '=', ref.id).where(edgeVisibleTo(readerId, 'e')).executeTakeFirst();
  if (!edge) return { skipped: 'Ikke kjørt: edgen finnes ikke lenger, eller skaperen kan ikke se den' };
  const [source, target] = await Promise.all([readNodeAs(db, readerId, edge.source_id), readNodeAs(db, readerId, edge.target_id)]);
  return {
    event: {
      type: 'edge.created',
      edge: toJson(edge as GraphEdge),
      ...(source ? { source: source.json } : {}),
      ...(target ? { target: target.json } : {}),
    },
  };
}

async function readNodeAs(db: Db, readerId: string, nodeId: string): Promise<{ view: 'full' | 'summary'; json: JsonObject } | undefined> {
  const row = await db.selectFrom('nodes as n').selectAll('n').select(accessLevelOf(readerId, 'n').as('access')).where('n.id', '=', nodeId).executeTakeFirst();
  if (!row) return undefined;
  const { access, ...node } = row;
  const relation = { creator: node.created_by === readerId, access: access as AccessLevel | null };
  const seen = nodeForReader(node as GraphNode, relation);
  if (!seen) return undefined;
  return { view: viewOf(node.visibility, relation)!, json: toJson(seen) };
}

function toJson(row: GraphNode | GraphEdge): JsonObject {
  return { ...row, created_at: row.created_at.toISOString() };
}

/** One row of the orchestration log. */
export async function recordLogEntry(db: Db, entry: { orchestrationId: string; jobId: number | null; event: EventRef; record: StepRecord }): Promise<void> {
  const { record } = entry;
  await db
    .insertInto('orchestration_log')
    .values({
      orchestration_id: entry.orchestrationId,
      job_id: entry.jobId === null ? null : String(entry.jobId),
      step: record.step,
      action: record.action,
      fallback: record.fallback,
      status: record.status,
      output: record.output === undefined ? null : JSON.stringify(record.output),
      error: record.error ?? null,
      duration_ms: record.duration_ms,
      event: JSON.stringify(entry.event),
    })
    .execute();
}

/** A page of an orchestration's log, newest first (keyset on the row id); who may read it is readOrchestrationLog's (packages/orchestration). */
export async function orchestrationLogPage(
  db: Db,
  orchestrationId: string,
  page: { limit: number; before?: number },
): Promise<{ entries: LogEntryView[]; next_cursor: number | null }> {
  const rows = await db
    .selectFrom('orchestration_log')
    .selectAll()
    .where('orchestration_id', '=', orchestrationId)
    .$if(page.before !== undefined, (q) => q.where('id', '<', String(page.before)))
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
  const entries = rows.slice(0, page.limit).map(
    (row): LogEntryView => ({
      id: Number(row.id),
      job_id: row.job_id === null ? null : Number(row.job_id),
      step: row.step,
      action: row.action as ActionName | null,
      fallback: row.fallback,
      status: row.status as LogStatus,
      ...(row.output !== null ? { output: row.output } : {}),
      ...(row.error !== null ? { error: row.error } : {}),
      duration_ms: row.duration_ms,
      event: row.event as unknown as EventRef,
      at: row.at.toISOString(),
    }),
  );
  return { entries, next_cursor: rows.length > page.limit ? entries.at(-1)!.id : null };
}
