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
  it('tts_generate fails visibly in the history, at once, not as a silent success', async () => {
    const tts = await enqueueJob(h.db, 'tts_generate', { node_id: 'n' });
    await runGovernedOnce(h);

    expect(await getJob(h.db, tts)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'tts_generate is not implemented yet' });
    const left = await sql<{ n: string }>`select count(*) as n from graphile_worker.jobs`.execute(h.db);
    expect(left.rows[0]!.n).toBe('0');
  });
});
