import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { enqueueJob, getJob } from '@inntak/postgres/jobs';
import { openTestDatabase, type OpenTestDatabase } from '@inntak/postgres/testing';
import { runGovernedOnce } from './__tests__/run-governed-once.js';

let h: OpenTestDatabase;
beforeAll(async () => {
  h = await openTestDatabase();
});
afterAll(() => h.dispose());

describe('job types whose work comes later', () => {
  it('orchestrate fails visibly in the history, at once, not as a silent success', async () => {
    const orchestrate = await enqueueJob(h.db, 'orchestrate', { script_id: 's', event: {} });
    await runGovernedOnce(h);

    expect(await getJob(h.db, orchestrate)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'orchestrate is not implemented yet' });
    const left = await sql<{ n: string }>`select count(*) as n from graphile_worker.jobs`.execute(h.db);
    expect(left.rows[0]!.n).toBe('0');
  });
});
