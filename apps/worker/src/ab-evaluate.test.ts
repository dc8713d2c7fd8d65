import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { parseCrontab } from 'graphile-worker';
import { OPERATOR, createNode, createPerson } from '@inntak/access';
import { recordAbCounts } from '@inntak/postgres/publishing';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { loadConfig } from './config.js';
import { runGovernedOnce } from './__tests__/run-governed-once.js';
import { createPublication, createVariant, publishArticle } from '@inntak/publishing';

let database: OpenTestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.dispose());

describe('the A/B evaluator in the worker', () => {
  it('runs from the crontab every 300 s', () => {
    const items = parseCrontab(loadConfig({ DATABASE_URL: 'postgres://x/y' }, []).crontab);
    const evaluator = items.find((i) => i.task === 'ab_evaluate');
    expect(evaluator).toBeDefined();
    expect(evaluator!.match).toBeDefined();
    // */5: minutes 0, 5, …, 55 of every hour.
    const minutes = Array.from({ length: 60 }, (_, m) => m).filter((m) =>
      (evaluator!.match as (digest: { min: number; hour: number; date: number; month: number; dow: number }) => boolean)({ min: m, hour: 3, date: 1, month: 1, dow: 1 }),
    );
    expect(minutes).toEqual([0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55]);
  });

  it('an ab_evaluate job decides a test with enough impressions and a significant difference', async () => {
    const owner = await createPerson(storesOn(database.db).graph, { subject: 'w-owner' });
    const pub = await createPublication(storesOn(database.db).publishing, OPERATOR, { title: 'W', slug: 'w', ownerId: owner.id });
    const article = await createNode(storesOn(database.db).graph, { personId: owner.id, isAdmin: false }, { node_kind: 'content', title: 'A' });
    await publishArticle(storesOn(database.db).publishing, OPERATOR, { publication_id: pub.id, node_id: article.id });
    const v = (title: string) => createVariant(storesOn(database.db).publishing, OPERATOR, { publication_id: pub.id, article_id: article.id, variant_type: 'headline', title });
    const a = (await v('A')).edge_id;
    const b = (await v('B')).edge_id;
    await recordAbCounts(database.db, [
      // Always-valid p = 0.017 (packages/ab-testing/src/msprt.test.ts).
      { variant_edge_id: a, hour_of_week: 10, impressions: 2000, clicks: 160 },
      { variant_edge_id: b, hour_of_week: 10, impressions: 2000, clicks: 100 },
    ]);
    await sql`select graphile_worker.add_job('ab_evaluate')`.execute(database.db);
    await runGovernedOnce(database);
    const rows = await database.db.selectFrom('edges').select(['id', 'metadata']).where('id', 'in', [a, b]).execute();
    const status = Object.fromEntries(rows.map((r) => [r.id, r.metadata.ab_status]));
    expect(status).toEqual({ [a]: 'winner', [b]: 'retired' });
  });
});
