import { sql } from 'kysely';
import type { JsonObject } from '@inntak/graph';
import type { EventRef, LogEntryView, OrchestrationStore, OrchestrationToRun, OrchestrationTx, RunContext, RunRef, RunStatus, RunView, StepRecord } from '@inntak/orchestration';
import type { Db } from '../platform/index.js';
import { graphWrite, markOrchestrationRun, PostgresGraphTx } from '../graph/index.js';
import { enqueueJob } from '../jobs/index.js';
import { lockSpeechQueueOf, speechJobsOf } from '../media/index.js';
import { loadEventVariables, loadOrchestration, orchestrationLogPage, recordLogEntry } from './orchestration-runs.js';
import { countActiveRuns, finishRun, queueRun, requeueRun, runsPage, secretsOf, startRun } from './run-records.js';

/**
 * Orchestration's port on PostgreSQL (packages/orchestration/src/ports.ts): the graph's queries
 * plus a run's. Who may, budgets and caps are the use cases' (packages/orchestration/src/graph-actions.ts).
 */
export class PostgresOrchestrationStore implements OrchestrationStore {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (tx: OrchestrationTx) => Promise<T>): Promise<T> {
    return graphWrite(this.db, (trx) => work(new PostgresOrchestrationTx(trx)));
  }

  async spendBudget(run: RunContext): Promise<boolean> {
    const { rows } = await sql<{ ok: boolean }>`select inntak_orchestration_spend(${run.root}::uuid, ${run.budget}::integer) as ok`.execute(this.db);
    return rows[0]!.ok;
  }

  loadOrchestration(orchestrationId: string): Promise<OrchestrationToRun | undefined> {
    return loadOrchestration(this.db, orchestrationId);
  }

  loadEventVariables(readerId: string, ref: EventRef): ReturnType<OrchestrationStore['loadEventVariables']> {
    return loadEventVariables(this.db, readerId, ref);
  }

  recordLogEntry(entry: { orchestrationId: string; jobId: number | null; event: EventRef; record: StepRecord }): Promise<void> {
    return recordLogEntry(this.db, entry);
  }

  async isWebhookToken(tokens: string[]): Promise<boolean> {
    // Tokens are stored as made (lower case), and intake compares them exactly: the index on them answers.
    const { rows } = await sql<{ id: string }>`
      select id from nodes where node_kind = 'webhook' and metadata ->> 'token' = any(${tokens}::text[]) limit 1`.execute(this.db);
    return rows.length > 0;
  }

  startRun(ref: RunRef, runsAs: string): ReturnType<OrchestrationStore['startRun']> {
    return startRun(this.db, ref, runsAs);
  }

  finishRun(ref: RunRef, result: { status: RunStatus; failedStep?: number; outputs?: Record<string, JsonObject> }): Promise<void> {
    return finishRun(this.db, ref, result);
  }

  secretsOf(orchestrationId: string): Promise<Map<string, string>> {
    return secretsOf(this.db, orchestrationId);
  }

  requeueRun(...args: Parameters<OrchestrationStore['requeueRun']>): Promise<number> {
    return requeueRun(this.db, ...args);
  }
}

class PostgresOrchestrationTx extends PostgresGraphTx implements OrchestrationTx {
  async markRun(run: RunContext): Promise<void> {
    await markOrchestrationRun(this.db, run);
  }

  async countOrchestrations(personId: string, cap: number): Promise<number> {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`inntak.orchestrations:${personId}`}, 0))`.execute(this.db);
    const { rows } = await sql<{ n: number }>`
      select count(*)::integer as n
      from (select 1 from nodes where created_by = ${personId} and node_kind = 'orchestration' limit ${cap}) mine`.execute(this.db);
    return rows[0]!.n;
  }

  lockSpeechQueueOf(personId: string): Promise<void> {
    return lockSpeechQueueOf(this.db, personId);
  }

  speechJobsOf(personId: string): Promise<number> {
    return speechJobsOf(this.db, personId);
  }

  async setMetadataKey(nodeId: string, key: string, value: unknown): Promise<void> {
    await this.db
      .updateTable('nodes')
      .set({ metadata: sql`metadata || jsonb_build_object(${key}::text, ${JSON.stringify(value)}::jsonb)` })
      .where('id', '=', nodeId)
      .execute();
  }

  enqueueSpeech(payload: { node_id: string; voice?: string; rate?: number; requested_by?: string; cascade?: RunContext }): Promise<number> {
    return enqueueJob(this.db, 'tts_generate', payload);
  }

  async cliTool(toolId: string): Promise<{ metadata: JsonObject; registered: boolean }> {
    return this.db
      .selectFrom('nodes as n')
      .select(['n.metadata', sql<boolean>`exists (select 1 from system_admins a where a.node_id = n.created_by)`.as('registered')])
      .where('n.id', '=', toolId)
      .executeTakeFirstOrThrow();
  }

  async firstOwner(nodeId: string): Promise<string | undefined> {
    const owner = await this.db
      .selectFrom('edges')
      .select('source_id')
      .where('target_id', '=', nodeId)
      .where('edge_type', '=', 'owner')
      .orderBy('created_at')
      .executeTakeFirst();
    return owner?.source_id;
  }

  async orchestrationNode(id: string): Promise<{ content: string; metadata: JsonObject; created_by: string | null; title: string | null }> {
    const row = await this.db.selectFrom('nodes').select(['content', 'metadata', 'created_by', 'title']).where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
    return { content: row.content ?? '', metadata: row.metadata, created_by: row.created_by, title: row.title };
  }

  async updateOrchestrationNode(id: string, change: { content?: string; metadata?: JsonObject; title?: string; created_by?: string | null }): Promise<void> {
    await this.db
      .updateTable('nodes')
      .set({
        ...(change.content !== undefined ? { content: change.content } : {}),
        ...(change.metadata !== undefined ? { metadata: JSON.stringify(change.metadata) } : {}),
        ...(change.title !== undefined ? { title: change.title } : {}),
        ...(change.created_by !== undefined ? { created_by: change.created_by } : {}),
      })
      .where('id', '=', id)
      .execute();
  }

  async observedBy(id: string): Promise<string[]> {
    const rows = await this.db.selectFrom('edges').select('target_id').where('source_id', '=', id).where('edge_type', '=', 'observes').execute();
    return rows.map((r) => r.target_id);
  }

  async deleteOrchestrationNode(id: string): Promise<void> {
    await this.db.deleteFrom('nodes').where('id', '=', id).where('node_kind', '=', 'orchestration').execute();
  }

  async setSchedule(id: string, schedule: { cron: string; nextAt: Date } | null): Promise<void> {
    if (!schedule) {
      await this.db.deleteFrom('orchestration_schedules').where('orchestration_id', '=', id).execute();
      return;
    }
    await this.db
      .insertInto('orchestration_schedules')
      .values({ orchestration_id: id, cron: schedule.cron, next_at: schedule.nextAt })
      .onConflict((oc) => oc.column('orchestration_id').doUpdateSet({ cron: schedule.cron, next_at: schedule.nextAt }))
      .execute();
  }

  async dueSchedules(now: Date, limit: number): Promise<Array<{ orchestration_id: string; cron: string; next_at: Date }>> {
    return this.db
      .selectFrom('orchestration_schedules')
      .select(['orchestration_id', 'cron', 'next_at'])
      .where('next_at', '<=', now)
      .orderBy('next_at')
      .limit(limit)
      .forUpdate()
      .skipLocked()
      .execute();
  }

  queueRun(...args: Parameters<OrchestrationTx['queueRun']>): ReturnType<OrchestrationTx['queueRun']> {
    return queueRun(this.db, ...args);
  }

  countActiveRuns(personId: string, cap: number): Promise<number> {
    return countActiveRuns(this.db, personId, cap);
  }

  async runRow(runId: string): ReturnType<OrchestrationTx['runRow']> {
    const row = await this.db.selectFrom('orchestration_runs').selectAll().where('id', '=', runId).executeTakeFirst();
    if (!row) return undefined;
    const event = (row.event as unknown as EventRef | null) ?? { type: row.event_type as EventRef['type'], id: row.subject_id, depth: row.depth };
    return { id: row.id, orchestration_id: row.orchestration_id, status: row.status, event, failed_step: row.failed_step, outputs: row.outputs as Record<string, JsonObject>, runs_as: row.runs_as };
  }

  runsPage(orchestrationId: string, page: { limit: number; before?: string }): Promise<RunView[]> {
    return runsPage(this.db, orchestrationId, page);
  }

  async setSecret(id: string, name: string, value: string): Promise<void> {
    await this.db
      .insertInto('orchestration_secrets')
      .values({ orchestration_id: id, name, value })
      .onConflict((oc) => oc.columns(['orchestration_id', 'name']).doUpdateSet({ value, set_at: sql`now()` }))
      .execute();
  }

  async deleteSecrets(id: string): Promise<void> {
    await this.db.deleteFrom('orchestration_secrets').where('orchestration_id', '=', id).execute();
  }

  logPage(orchestrationId: string, page: { limit: number; before?: number }): Promise<{ entries: LogEntryView[]; next_cursor: number | null }> {
    return orchestrationLogPage(this.db, orchestrationId, page);
  }
}
