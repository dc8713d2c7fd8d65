import { AppError, stringifyJson } from '@inntak/core';
import {
  AlreadyWrittenError,
  IntakeWriteError,
  tokenHash,
  webhookLocaleOf,
  type BatchIntakeStore,
  type ContentWrite,
  type DeliveryLogEntry,
  type FailedDelivery,
  type KeptTarget,
  type SignatureScheme,
  type WebhookTarget,
  type WebhookTargetSource,
  type WriteOutcome,
} from '@inntak/intake';
import type { NewEdge, NewNode } from '@inntak/graph';
import type { DatabaseHandle, PreparedStatement } from '../platform/index.js';

/**
 * The intake's two statements, prepared once per connection: intake is the product's hot path
 * (docs/performance.md). The lookup is served by the unique partial index
 * nodes_webhook_token_idx (the secret, when there is one, by webhook_secrets' key); the write
 * is one call of inntak_intake_write (db/migrations/016: node, edge, access rows and the
 * delivery's log row, or only the log row for a duplicate), so it is one round trip and its
 * own transaction. Its change notices follow in a statement of their own (migration 031): a
 * transaction that notifies holds the database's notify lock until its commit is flushed, so
 * writes that notified committed one at a time.
 */
const FIND_WEBHOOK: PreparedStatement = {
  name: 'inntak_intake_find_webhook',
  // A previous token in its grace (migration 035) by its hash ($2), the primary key: asked only
  // when no webhook has the token as its own (the limit stops at the first branch's row).
  text: `(select w.id, e.target_id, w.metadata ->> 'template_id' as template_id, w.metadata ->> 'locale' as locale, s.scheme, s.secret,
                 null::text as previous_hash, null::timestamptz as grace_until
            from nodes w join edges e on e.source_id = w.id and e.edge_type = 'belongs_to'
            left join webhook_secrets s on s.webhook_id = w.id
           where w.node_kind = 'webhook' and w.metadata ->> 'token' = $1
           order by e.created_at, e.id limit 1)
         union all
         (select w.id, e.target_id, w.metadata ->> 'template_id', w.metadata ->> 'locale', s.scheme, s.secret, p.token_hash, p.grace_until
            from webhook_previous_tokens p join nodes w on w.id = p.webhook_id
            join edges e on e.source_id = w.id and e.edge_type = 'belongs_to'
            left join webhook_secrets s on s.webhook_id = w.id
           where p.token_hash = $2 and p.grace_until > now()
           order by e.created_at, e.id limit 1)
         limit 1`,
};
const WRITE_CONTENT: PreparedStatement = {
  name: 'inntak_intake_write_quiet',
  text: `select propagation_error, duplicate_node_id, duplicate_edge_id
           from inntak_intake_write_quiet($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)`,
};
/**
 * Several intakes in one statement, so one transaction (GroupCommit, packages/intake): the
 * parameters are WRITE_CONTENT's as arrays, one element per write. inntak_intake_write_batch
 * (migration 042) does what a call of inntak_intake_write_quiet per write would, in order
 * (copies of one delivery id in the batch: the first is written, the rest are its duplicates),
 * but with one statement per table for the batch instead of per write: less database CPU per
 * write, which is what a batch is for. It answers one row per write, in their order.
 */
const WRITE_CONTENTS: PreparedStatement = {
  name: 'inntak_intake_write_batch',
  text: `select propagation_error, duplicate_node_id, duplicate_edge_id
           from inntak_intake_write_batch($1::uuid[], $2::text[], $3::text[], $4::text[], $5::visibility[], $6::jsonb[], $7::uuid[],
                $8::uuid[], $9::uuid[], $10::uuid[], $11::text[], $12::jsonb[], $13::boolean[], $14::uuid[],
                $15::uuid[], $16::uuid[], $17::timestamptz[], $18::text[], $19::text[], $20::bigint[], $21::integer[], $22::jsonb[], $23::text[])`,
};
/** The committed writes' change notices, as the triggers would have sent them (migration 031). */
const SEND_NOTICES: PreparedStatement = {
  name: 'inntak_intake_notices',
  text: 'select inntak_intake_notices($1::uuid[], $2::uuid[])',
};
/**
 * A refusal is counted, not logged a row each (issue 22, finding 12): one row per webhook,
 * minute, status and reason, upserted, so a flood of refused requests adds a handful of rows a
 * minute and never pushes accepted deliveries out of webhook_deliveries (migration 018). The
 * first KEPT_REFUSALS_PER_MINUTE of a webhook's minute are also kept whole, with headers and
 * body, for the delivery inspector (migration 036).
 */
const RECORD_FAILURE: PreparedStatement = {
  name: 'inntak_intake_refuse',
  text: 'select inntak_intake_refuse($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)',
};

/** Writes whose notices one statement sends at most (a group commit's batch is at most 64). */
const MAX_NOTICES_PER_STATEMENT = 500;

/**
 * The least time between two notice statements of one store (issue 40): a write answered while
 * the idle store waits goes out at once, but under load the writes of 20 ms share one round
 * trip (about 0.1 ms of CPU on each side here) instead of one or two writes each, and realtime
 * clients hear of a write at most this much later.
 */
const NOTICE_INTERVAL_MS = 20;

/** How many refused requests of one minute are kept whole per webhook (the rest only counted). */
export const KEPT_REFUSALS_PER_MINUTE = 20;

/**
 * A changed webhook's tokens again, for the intake's webhook cache (WebhookTargetCache): read
 * after a change notice of a webhook it knows (rare), by the webhooks' primary keys.
 */
const WEBHOOK_TARGETS: PreparedStatement = {
  name: 'inntak_intake_webhook_targets',
  text: `select w.id, w.metadata ->> 'token' as token, e.target_id, w.metadata ->> 'template_id' as template_id, w.metadata ->> 'locale' as locale,
                s.scheme, s.secret, p.token_hash as previous_hash, p.grace_until
           from nodes w
           cross join lateral (select e.target_id from edges e where e.source_id = w.id and e.edge_type = 'belongs_to' order by e.created_at, e.id limit 1) e
           left join webhook_secrets s on s.webhook_id = w.id
           left join lateral (select null::text as token_hash, null::timestamptz as grace_until
                              union all
                              select p.token_hash, p.grace_until from webhook_previous_tokens p
                               where p.webhook_id = w.id and p.grace_until > now()) p on true
          where w.id = any($1::uuid[]) and w.node_kind = 'webhook'`,
};

/** The statements as they run, for the benchmark's ceiling (bench/src/intake.ts). */
export const INTAKE_STATEMENTS = { findWebhook: FIND_WEBHOOK, writeContent: WRITE_CONTENT, sendNotices: SEND_NOTICES };

type OutcomeRow = { propagation_error: string | null; duplicate_node_id: string | null; duplicate_edge_id: string | null };

/** The intake's store on PostgreSQL, and where the intake's webhook cache reads a changed webhook again. */
export class PostgresIntakeStore implements BatchIntakeStore, WebhookTargetSource {
  /**
   * `noticesFailed` hears of change notices that could not be sent after a commit: the write is
   * stored and answered as such (a batch must not be written again one by one), and realtime
   * clients miss its events, as when a notice is lost with the listener's connection.
   */
  constructor(
    private readonly database: Pick<DatabaseHandle, 'prepared'>,
    private readonly noticesFailed: (error: unknown) => void = () => {},
  ) {}

  /** Committed writes whose notices wait for the statement in flight, in the order they committed here. */
  private unsent: ContentWrite[] = [];
  private sending: Promise<void> | undefined;

  async findWebhookByToken(token: string): Promise<WebhookTarget | undefined> {
    const [row] = await this.database.prepared<TargetRow>(FIND_WEBHOOK, [token, tokenHash(token)]);
    return row ? targetOf(row) : undefined;
  }

  async targetsOf(webhookIds: readonly string[]): Promise<KeptTarget[]> {
    const rows = await this.database.prepared<TargetRow & { id: string; token: string }>(WEBHOOK_TARGETS, [webhookIds]);
    return rows.map((row) => ({ tokenHash: row.previous_hash ?? tokenHash(row.token), target: targetOf(row) }));
  }

  async writeContent(node: NewNode, edge: NewEdge, log: DeliveryLogEntry): Promise<WriteOutcome> {
    const outcome = await this.write({ node, edge, log });
    if (!outcome.duplicateOf) this.sendNotices([{ node, edge, log }]);
    return outcome;
  }

  private async write(write: ContentWrite): Promise<WriteOutcome> {
    try {
      const [row] = await this.database.prepared<OutcomeRow>(WRITE_CONTENT, writeValues(write));
      return outcomeOf(row!);
    } catch (error) {
      throw writeError(error);
    }
  }

  async writeContents(writes: readonly ContentWrite[]): Promise<WriteOutcome[]> {
    // Column-wise: the i-th array holds the i-th parameter of every write.
    const rows = writes.map(writeValues);
    const columns = rows[0]!.map((_, i) => rows.map((row) => row[i]));
    // A batch's failure is one of its writes' (GroupCommit then writes them one by one); mapped
    // as write()'s, except the step: the batch function does not name the table that failed.
    let answered: OutcomeRow[];
    try {
      answered = await this.database.prepared<OutcomeRow>(WRITE_CONTENTS, columns);
    } catch (error) {
      throw writeError(error);
    }
    const outcomes = answered.map(outcomeOf);
    this.sendNotices(writes.filter((_, i) => !outcomes[i]!.duplicateOf));
    return outcomes;
  }

  /**
   * The change notices of committed writes, sent after the answer rather than before it: one
   * statement at a time, carrying every write that committed while the one before ran, in the
   * order they committed here, at most one statement per NOTICE_INTERVAL_MS. Under load that is
   * one round trip for many writes instead of one each, and the sender's answer does not wait
   * for it (issue 40). A process killed in
   * between loses those notices, as it would have between its commit and its notices before.
   */
  private sendNotices(written: readonly ContentWrite[]): void {
    if (written.length === 0) return;
    this.unsent.push(...written);
    this.sending ??= this.sendUnsent();
  }

  private async sendUnsent(): Promise<void> {
    while (this.unsent.length > 0) {
      const started = Date.now();
      const batch = this.unsent.splice(0, MAX_NOTICES_PER_STATEMENT);
      await this.database.prepared(SEND_NOTICES, [batch.map((w) => w.node.id), batch.map((w) => w.edge.id)]).catch(this.noticesFailed);
      // Under load, at most one statement per NOTICE_INTERVAL_MS: what waits meanwhile goes in the next.
      const rest = NOTICE_INTERVAL_MS - (Date.now() - started);
      if (this.unsent.length > 0 && rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
    this.sending = undefined;
  }

  /** Resolves once the notices of every write answered so far are sent (or reported lost): before the pool closes. */
  async noticesSent(): Promise<void> {
    await this.sending;
  }

  async recordFailedDelivery(delivery: FailedDelivery): Promise<void> {
    await this.database.prepared(RECORD_FAILURE, [
      ...[delivery.id, delivery.webhookId, delivery.receivedAt, delivery.status, delivery.error],
      ...[delivery.deliveryId, delivery.event, delivery.bytes, delivery.durationMs],
      `${delivery.reason?.slice(0, 200) ?? refusalReason(delivery.error)}${delivery.previousToken ? PREVIOUS_TOKEN_REASON : ''}`,
      ...[JSON.stringify(delivery.headers ?? {}), delivery.body?.text ?? null, delivery.body?.truncated ?? false, KEPT_REFUSALS_PER_MINUTE],
      delivery.previousToken ?? null,
    ]);
  }
}

/** A write's database error as the intake answers it. */
function writeError(error: unknown): unknown {
  // A foreign-key violation means the webhook (or its collection) was deleted between the
  // token lookup and the write: answer as for a deleted webhook, 404, not a database failure.
  const code = (error as { code?: unknown } | null)?.code;
  if (code === '23503') return new AppError('webhook_not_found', { cause: error });
  // A node or log row with this id exists: only a spooled entry written twice has an old id.
  if (code === '23505' && isPrimaryKeyOfDelivery(error)) return new AlreadyWrittenError({ cause: error });
  // inntak_intake_write names the table whose insert failed in the error's TABLE field.
  const table = (error as { table?: unknown } | null)?.table;
  if (table === 'nodes') return new IntakeWriteError('node', { cause: error });
  if (table === 'edges') return new IntakeWriteError('edge', { cause: error });
  return error;
}

function isPrimaryKeyOfDelivery(error: unknown): boolean {
  const constraint = (error as { constraint?: unknown }).constraint;
  return constraint === 'nodes_pkey' || constraint === 'edges_pkey' || constraint === 'webhook_deliveries_pkey';
}

function writeValues({ node, edge, log }: ContentWrite): unknown[] {
  return [
    ...[node.id, node.node_kind, node.title, node.content, node.visibility, stringifyJson(node.metadata), node.created_by],
    ...[edge.id, edge.source_id, edge.target_id, edge.edge_type, JSON.stringify(edge.metadata), edge.system, edge.created_by],
    ...[log.id, log.webhookId, log.receivedAt, log.deliveryId, log.event, log.bytes, log.durationMs, JSON.stringify(log.headers ?? {}), log.previousToken ?? null],
  ];
}

type TargetRow = {
  id: string;
  target_id: string;
  template_id: string | null;
  locale: string | null;
  scheme: SignatureScheme | null;
  secret: string | null;
  previous_hash: string | null;
  grace_until: Date | null;
};

function targetOf(row: TargetRow): WebhookTarget {
  const secret = row.scheme !== null && row.secret !== null ? { scheme: row.scheme, secret: row.secret } : null;
  const target: WebhookTarget = { webhookId: row.id, collectionId: row.target_id, templateId: row.template_id, locale: webhookLocaleOf(row.locale), secret };
  if (row.previous_hash !== null && row.grace_until !== null) target.previousToken = { hash: row.previous_hash, until: row.grace_until.toISOString() };
  return target;
}

function outcomeOf(row: OutcomeRow): WriteOutcome {
  const duplicateOf = row.duplicate_node_id && row.duplicate_edge_id ? { nodeId: row.duplicate_node_id, edgeId: row.duplicate_edge_id } : null;
  return { propagationError: row.propagation_error, duplicateOf };
}

/**
 * What refusals are counted by: the error text without its detail (`Ugyldig forespørsel` of
 * `Ugyldig forespørsel: event_id: …`), one of the error table's texts, so a sender cannot make
 * a row per request by varying the detail (an encoding's name, a parse position).
 */
/** What keeps refusals of a previous token's requests in rows of their own. */
const PREVIOUS_TOKEN_REASON = ' (forrige token)';

function refusalReason(error: string): string {
  const colon = error.indexOf(': ');
  return (colon === -1 ? error : error.slice(0, colon)).slice(0, 200);
}
