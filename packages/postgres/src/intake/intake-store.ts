import { sql } from 'kysely';
import { AppError, stringifyJson } from '@inntak/core';
import type { IntakeStore, IntakeTransaction, WebhookTarget } from '@inntak/intake';
import type { Db } from '../platform/index.js';
import { tryPropagateBelongsTo } from '../graph/index.js';
import { enqueueJob } from '../jobs/index.js';

/** The intake's store on PostgreSQL. */
export class PostgresIntakeStore implements IntakeStore {
  constructor(private readonly db: Db) {}

  async findWebhookByToken(token: string): Promise<WebhookTarget | undefined> {
    // Served by the unique partial index nodes_webhook_token_idx.
    const row = await this.db
      .selectFrom('nodes as w')
      .innerJoin('edges as e', (join) => join.onRef('e.source_id', '=', 'w.id').on('e.edge_type', '=', 'belongs_to'))
      .select(['w.id', 'e.target_id', sql<string | null>`w.metadata ->> 'template_id'`.as('template_id')])
      .where('w.node_kind', '=', 'webhook')
      .where(sql`w.metadata ->> 'token'`, '=', token)
      .orderBy('e.created_at')
      .limit(1)
      .executeTakeFirst();
    if (!row) return undefined;
    return { webhookId: row.id, collectionId: row.target_id, templateId: row.template_id };
  }

  transaction<T>(work: (tx: IntakeTransaction) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) =>
      work({
        async insertNode(node) {
          await trx.insertInto('nodes').values({ ...node, metadata: stringifyJson(node.metadata) }).execute().catch(webhookGone);
        },
        async insertEdge(edge) {
          await trx.insertInto('edges').values({ ...edge, metadata: JSON.stringify(edge.metadata) }).execute().catch(webhookGone);
        },
        async propagateAccess(edgeId) {
          const error = await tryPropagateBelongsTo(trx, edgeId);
          if (error !== null) throw new Error(error);
        },
        async queueAccessRepair(edgeId) {
          await enqueueJob(trx, 'access_repair', { edge_id: edgeId });
        },
      }),
    );
  }
}

/**
 * A foreign-key violation here means the webhook (or its collection) was deleted between the
 * token lookup and the write: answer as for a deleted webhook, 404, not a database failure.
 */
function webhookGone(error: unknown): never {
  if ((error as { code?: unknown } | null)?.code === '23503') throw new AppError('webhook_not_found', { cause: error });
  throw error;
}
