import { AppError, stringifyJson } from '@inntak/core';
import { IntakeWriteError, type IntakeStore, type WebhookTarget } from '@inntak/intake';
import type { NewEdge, NewNode } from '@inntak/graph';
import type { DatabaseHandle, PreparedStatement } from '../platform/index.js';

/**
 * The intake's two statements, prepared once per connection: intake is the product's hot path
 * (docs/performance.md). The lookup is served by the unique partial index
 * nodes_webhook_token_idx; the write is one call of inntak_intake_write (db/migrations/008), so
 * it is one round trip and its own transaction.
 */
const FIND_WEBHOOK: PreparedStatement = {
  name: 'inntak_intake_find_webhook',
  text: `select w.id, e.target_id, w.metadata ->> 'template_id' as template_id
           from nodes w join edges e on e.source_id = w.id and e.edge_type = 'belongs_to'
          where w.node_kind = 'webhook' and w.metadata ->> 'token' = $1
          order by e.created_at limit 1`,
};
const WRITE_CONTENT: PreparedStatement = {
  name: 'inntak_intake_write',
  text: 'select inntak_intake_write($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) as propagation_error',
};

/** The statements as they run, for the benchmark's ceiling (bench/src/intake.ts). */
export const INTAKE_STATEMENTS = { findWebhook: FIND_WEBHOOK, writeContent: WRITE_CONTENT };

/** The intake's store on PostgreSQL. */
export class PostgresIntakeStore implements IntakeStore {
  constructor(private readonly database: Pick<DatabaseHandle, 'prepared'>) {}

  async findWebhookByToken(token: string): Promise<WebhookTarget | undefined> {
    const [row] = await this.database.prepared<{ id: string; target_id: string; template_id: string | null }>(FIND_WEBHOOK, [token]);
    if (!row) return undefined;
    return { webhookId: row.id, collectionId: row.target_id, templateId: row.template_id };
  }

  async writeContent(node: NewNode, edge: NewEdge): Promise<{ propagationError: string | null }> {
    const values = [
      ...[node.id, node.node_kind, node.title, node.content, node.visibility, stringifyJson(node.metadata), node.created_by],
      ...[edge.id, edge.source_id, edge.target_id, edge.edge_type, JSON.stringify(edge.metadata), edge.system, edge.created_by],
    ];
    try {
      const [row] = await this.database.prepared<{ propagation_error: string | null }>(WRITE_CONTENT, values);
      return { propagationError: row!.propagation_error };
    } catch (error) {
      // A foreign-key violation means the webhook (or its collection) was deleted between the
      // token lookup and the write: answer as for a deleted webhook, 404, not a database failure.
      if ((error as { code?: unknown } | null)?.code === '23503') throw new AppError('webhook_not_found', { cause: error });
      // inntak_intake_write names the table whose insert failed in the error's TABLE field.
      const table = (error as { table?: unknown } | null)?.table;
      if (table === 'nodes') throw new IntakeWriteError('node', { cause: error });
      if (table === 'edges') throw new IntakeWriteError('edge', { cause: error });
      throw error;
    }
  }
}
