import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { sql } from 'kysely';
import type { JobHelpers } from 'graphile-worker';
import { uuidv7, type Logger } from '@inntak/core';
import { pruneDeliveries } from '@inntak/postgres/deliveries';
import { openTestDatabase, type OpenTestDatabase } from '@inntak/postgres/testing';
import { CRONTAB_FILE } from './config.js';
import { pruneDeliveriesTask } from './tasks/prune-deliveries.js';

const logs: Array<{ message: string; meta?: Record<string, unknown> }> = [];
const logger: Logger = { error() {}, warn() {}, info: (message, meta) => logs.push({ message, meta }), debug() {} };

let h: OpenTestDatabase;
beforeAll(async () => {
  h = await openTestDatabase();
});
afterAll(() => h.dispose());

/** `count` log rows for a webhook, received `daysAgo` days ago, one millisecond apart (UUIDv7 ids in that order). */
async function logRows(webhookId: string, count: number, daysAgo = 0) {
  const start = Date.now() - daysAgo * 86_400_000 - count;
  const rows = Array.from({ length: count }, (_, i) => ({ id: uuidv7(start + i), webhook_id: webhookId, received_at: new Date(start + i), status: 200 }));
  for (let i = 0; i < rows.length; i += 5000) await h.db.insertInto('webhook_deliveries').values(rows.slice(i, i + 5000)).execute();
  return rows.map((r) => r.id);
}

const countOf = async (webhookId: string) =>
  Number((await h.db.selectFrom('webhook_deliveries').select(sql<string>`count(*)`.as('n')).where('webhook_id', '=', webhookId).executeTakeFirstOrThrow()).n);

describe('delivery log pruning', () => {
  it('keeps 30 days and the newest 10,000 per webhook; drops delivery ids older than 24 hours (the hourly task)', async () => {
    const busy = uuidv7();
    const quiet = uuidv7();
    const busyIds = await logRows(busy, 10_250);
    await logRows(quiet, 3, 31);
    const kept = await logRows(quiet, 2, 29);
    await h.db
      .insertInto('webhook_delivery_ids')
      .values([
        { webhook_id: quiet, delivery_id: 'old', node_id: uuidv7(), edge_id: uuidv7(), claimed_at: new Date(Date.now() - 25 * 3_600_000) },
        { webhook_id: quiet, delivery_id: 'fresh', node_id: uuidv7(), edge_id: uuidv7() },
      ])
      .execute();

    await pruneDeliveriesTask({ pruneDeliveries: () => pruneDeliveries(h.db), logger })({}, {} as JobHelpers);

    expect(await countOf(busy)).toBe(10_000);
    const oldestKept = await h.db.selectFrom('webhook_deliveries').select(sql<string>`min(id::text)`.as('id')).where('webhook_id', '=', busy).executeTakeFirstOrThrow();
    expect(oldestKept.id).toBe(busyIds[250]);
    const quietLeft = await h.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', quiet).orderBy('id').execute();
    expect(quietLeft.map((r) => r.id)).toEqual(kept);
    const ids = await h.db.selectFrom('webhook_delivery_ids').select('delivery_id').where('webhook_id', '=', quiet).execute();
    expect(ids).toEqual([{ delivery_id: 'fresh' }]);
    expect(logs.at(-1)).toEqual({ message: 'delivery log pruned', meta: { tag: 'prune_deliveries', expired: 3, over_limit: 250, delivery_ids: 1, refusals: 0, kept_requests: 0 } });
  });

  it('deletes in batches until nothing is left to delete', async () => {
    await h.db.deleteFrom('webhook_deliveries').execute();
    const webhook = uuidv7();
    await logRows(webhook, 25, 40);
    await logRows(webhook, 12);
    expect(await pruneDeliveries(h.db, { days: 30, perWebhook: 5, batch: 4 })).toMatchObject({ expired: 25, overLimit: 7 });
    expect(await countOf(webhook)).toBe(5);
  });

  it('prunes counted refusals apart: they never push accepted deliveries out (issue 22, finding 12)', async () => {
    const webhook = uuidv7();
    const accepted = await logRows(webhook, 5);
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    const refusal = (minutesAgo: number) => {
      const at = new Date(minute - minutesAgo * 60_000);
      return { webhook_id: webhook, minute: at, status: 401, reason: 'Ugyldig signatur', id: uuidv7(at.getTime()), first_received_at: at, last_received_at: at, count: 500, error: 'Ugyldig signatur' };
    };
    await h.db.insertInto('webhook_refusals').values([...Array.from({ length: 8 }, (_, i) => refusal(i + 1)), refusal(31 * 24 * 60)]).execute();
    expect(await pruneDeliveries(h.db, { days: 30, perWebhook: 5, batch: 4 })).toMatchObject({ expired: 0, overLimit: 0, refusals: 4 });
    const left = await h.db.selectFrom('webhook_deliveries').select('id').where('webhook_id', '=', webhook).orderBy('id').execute();
    expect(left.map((r) => r.id)).toEqual(accepted);
    const refusals = await h.db.selectFrom('webhook_refusals').select('minute').where('webhook_id', '=', webhook).orderBy('minute', 'desc').execute();
    expect(refusals.map((r) => r.minute.getTime())).toEqual([1, 2, 3, 4, 5].map((m) => minute - m * 60_000));
  });

  it('runs hourly from the crontab', () => {
    expect(readFileSync(CRONTAB_FILE, 'utf8')).toMatch(/^\d+ \* \* \* \* prune_deliveries /m);
  });
});
