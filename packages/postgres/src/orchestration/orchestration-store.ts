import { sql } from 'kysely';
import type { JsonObject } from '@inntak/graph';
import type { EventRef, LogEntryView, OrchestrationStore, OrchestrationToRun, OrchestrationTx, RunContext, StepRecord } from '@inntak/orchestration';
import type { Db } from '../platform/index.js';
import { graphWrite, markOrchestrationRun, PostgresGraphTx } from '../graph/index.js';
import { enqueueJob } from '../jobs/index.js';
import { lockSpeechQueueOf, speechJobsOf } from '../media/index.js';
import { loadEventVariables, loadOrchestration, orchestrationLogPage, recordLogEntry } from './orchestration-runs.js';

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

  logPage(orchestrationId: string, page: { limit: number; before?: number }): Promise<{ entries: LogEntryView[]; next_cursor: number | null }> {
    return orchestrationLogPage(this.db, orchestrationId, page);
  }
}
