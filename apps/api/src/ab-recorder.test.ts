import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { OPERATOR, createNode, createPerson } from '@inntak/access';
import { recordAbCounts, type AbCountRow } from '@inntak/postgres/publishing';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { AbRecorder } from '@inntak/ab-testing';
import { captureLogger } from './__tests__/helpers.js';
import { createPublication, createVariant, publishArticle } from '@inntak/publishing';

let db: OpenTestDatabase;
let variant: string;

beforeAll(async () => {
  db = await openTestDatabase();
  const owner = await createPerson(storesOn(db.db).graph, { subject: 'rec-owner' });
  const pub = await createPublication(storesOn(db.db).publishing, OPERATOR, { title: 'R', slug: 'r', ownerId: owner.id });
  const article = await createNode(storesOn(db.db).graph, { personId: owner.id, isAdmin: false }, { node_kind: 'content', title: 'A' });
  await publishArticle(storesOn(db.db).publishing, OPERATOR, { publication_id: pub.id, node_id: article.id });
  variant = (await createVariant(storesOn(db.db).publishing, OPERATOR, { publication_id: pub.id, article_id: article.id, variant_type: 'headline', title: 'V' })).edge_id;
});
afterAll(() => db.dispose());

async function stored(): Promise<{ rows: number; impressions: number; clicks: number }> {
  const { rows } = await sql<{ rows: string; impressions: string | null; clicks: string | null }>`
    select count(*) as rows, sum(impressions) as impressions, sum(clicks) as clicks from ab_events where variant_edge_id = ${variant}`.execute(db.db);
  return { rows: Number(rows[0]!.rows), impressions: Number(rows[0]!.impressions ?? 0), clicks: Number(rows[0]!.clicks ?? 0) };
}

describe('AB event recording', () => {
  it('uncounted impressions by reason go in the same row as the counted ones: one insert per variant and hour, not one per page view', async () => {
    await sql`delete from ab_events`.execute(db.db);
    const { logger } = captureLogger();
    let batches = 0;
    const recorder = new AbRecorder((rows) => ((batches += 1), recordAbCounts(db.db, rows)), logger, { flushMs: 3_600_000 });
    for (let i = 0; i < 40; i++) recorder.impression(variant);
    for (let i = 0; i < 30; i++) recorder.uncounted(variant, 'bot');
    for (let i = 0; i < 5; i++) recorder.uncounted(variant, 'prefetch');
    for (let i = 0; i < 7; i++) recorder.uncounted(variant, 'address_cap');
    recorder.uncounted(variant, 'repeat');
    await recorder.close();
    expect(batches).toBe(1);
    const { rows } = await sql`select impressions, clicks, uncounted_bot, uncounted_prefetch, uncounted_address_cap, uncounted_repeat from ab_events where variant_edge_id = ${variant}`.execute(db.db);
    expect(rows).toEqual([{ impressions: 40, clicks: 0, uncounted_bot: 30, uncounted_prefetch: 5, uncounted_address_cap: 7, uncounted_repeat: 1 }]);
  });

  it('counts in memory and writes one row per variant and hour when its flush timer fires', async () => {
    await sql`delete from ab_events`.execute(db.db);
    const { logger } = captureLogger();
    let batches = 0;
    let wrote!: () => void;
    const firstWrite = new Promise<void>((resolve) => (wrote = resolve));
    // 50 ms instead of the default second: the timer is what is tested, not the length of a second.
    const recorder = new AbRecorder(
      async (rows) => {
        batches += 1;
        await recordAbCounts(db.db, rows);
        wrote();
      },
      logger,
      { flushMs: 50 },
    );
    for (let i = 0; i < 500; i++) recorder.impression(variant);
    recorder.click(variant);
    // Asked at once, not through the database: a 50 ms timer may already have fired by then.
    expect(batches).toBe(0);
    // Nothing calls flush(): only the timer can write.
    await firstWrite;
    expect(await stored()).toEqual({ rows: 1, impressions: 500, clicks: 1 });
    expect(batches).toBe(1);
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
