import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { OPERATOR } from '@inntak/access';
import { createNode } from '@inntak/postgres/graph';
import { createPublication, createVariant, publishArticle, recordAbCounts, type AbCountRow } from '@inntak/postgres/publishing';
import { openTestDatabase, type OpenTestDatabase } from '@inntak/postgres/testing';
import { createPerson } from '@inntak/postgres/graph';
import { AbRecorder } from '@inntak/ab-testing';
import { captureLogger } from './__tests__/helpers.js';

let db: OpenTestDatabase;
let variant: string;

beforeAll(async () => {
  db = await openTestDatabase();
  const owner = await createPerson(db.db, { subject: 'rec-owner' });
  const pub = await createPublication(db.db, { title: 'R', slug: 'r', ownerId: owner.id });
  const article = await createNode(db.db, { personId: owner.id, isAdmin: false }, { node_kind: 'content', title: 'A' });
  await publishArticle(db.db, OPERATOR, { publication_id: pub.id, node_id: article.id });
  variant = (await createVariant(db.db, OPERATOR, { publication_id: pub.id, article_id: article.id, variant_type: 'headline', title: 'V' })).edge_id;
});
afterAll(() => db.dispose());

async function stored(): Promise<{ rows: number; impressions: number; clicks: number }> {
  const { rows } = await sql<{ rows: string; impressions: string | null; clicks: string | null }>`
    select count(*) as rows, sum(impressions) as impressions, sum(clicks) as clicks from ab_events where variant_edge_id = ${variant}`.execute(db.db);
  return { rows: Number(rows[0]!.rows), impressions: Number(rows[0]!.impressions ?? 0), clicks: Number(rows[0]!.clicks ?? 0) };
}

describe('AB event recording', () => {
  it('counts in memory and writes one row per variant and hour within a second', async () => {
    await sql`delete from ab_events`.execute(db.db);
    const { logger } = captureLogger();
    const written: number[] = [];
    const recorder = new AbRecorder(
      async (rows) => {
        written.push(Date.now());
        await recordAbCounts(db.db, rows);
      },
      logger,
    );
    const started = Date.now();
    for (let i = 0; i < 500; i++) recorder.impression(variant);
    recorder.click(variant);
    expect(await stored()).toEqual({ rows: 0, impressions: 0, clicks: 0 });
    // Polling the table, not sleeping a fixed time: the batch must land within the second.
    while ((await stored()).rows === 0) {
      expect(Date.now() - started).toBeLessThan(1500);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await stored()).toEqual({ rows: 1, impressions: 500, clicks: 1 });
    expect(written).toHaveLength(1);
    expect(written[0]! - started).toBeLessThanOrEqual(1100);
    await recorder.close();
  });

  it('a failed write keeps its counts for the next flush; close() writes them', async () => {
    await sql`delete from ab_events`.execute(db.db);
    const { logger, entries } = captureLogger();
    let failing = true;
    // The one injected failure: the database port refusing a batch.
    const write = async (rows: AbCountRow[]) => {
      if (failing) throw new Error('connection refused');
      await recordAbCounts(db.db, rows);
    };
    const recorder = new AbRecorder(write, logger, { flushMs: 3_600_000 });
    recorder.impression(variant);
    recorder.impression(variant);
    await recorder.flush();
    expect(entries.some((e) => e.message.startsWith('AB events could not be written'))).toBe(true);
    recorder.impression(variant);
    failing = false;
    await recorder.close();
    expect(await stored()).toEqual({ rows: 1, impressions: 3, clicks: 0 });
  });
});
