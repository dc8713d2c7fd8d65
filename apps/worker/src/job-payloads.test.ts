import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { getJob } from '@inntak/postgres/jobs';
import { openTestDatabase, type OpenTestDatabase } from '@inntak/postgres/testing';
import { runGovernedOnce } from './__tests__/run-governed-once.js';

let h: OpenTestDatabase;
beforeAll(async () => {
  h = await openTestDatabase();
});
afterAll(() => h.dispose());

/** Queues a job the way the database's own triggers do, with any JSON (no TypeScript type in the way). */
async function enqueueRaw(jobType: string, payload: unknown): Promise<number> {
  const { rows } = await sql<{ id: string }>`select inntak_enqueue_job(${jobType}, ${JSON.stringify(payload)}::jsonb, null::int, null::timestamptz) as id`.execute(h.db);
  return Number(rows[0]!.id);
}

async function workerJobsLeft(): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from graphile_worker._private_jobs`.execute(h.db);
  return Number(rows[0]!.n);
}

describe('job payloads are checked before a job runs', () => {
  it('an access_repair job whose edge_id is not an edge id fails at once, naming the field, without retries', async () => {
    const id = await enqueueRaw('access_repair', { edge_id: 42 });
    await runGovernedOnce(h);
    expect(await getJob(h.db, id)).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_error: expect.stringMatching(/^invalid access_repair payload: edge_id: /),
    });
    expect(await workerJobsLeft()).toBe(0);
  });

  it('an access_repair job without an edge_id, queued around enqueueJob (plain add_job), fails the same way', async () => {
    await sql`select graphile_worker.add_job('access_repair', '{"edgeid": "x"}'::json, flags => array['access_repair'])`.execute(h.db);
    await runGovernedOnce(h);
    const row = await h.db.selectFrom('job_queue').select(['id', 'status', 'attempts', 'last_error']).where('job_type', '=', 'access_repair').orderBy('id', 'desc').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', attempts: 1, last_error: expect.stringMatching(/^invalid access_repair payload: edge_id: /) });
    expect(await workerJobsLeft()).toBe(0);
  });

  it('a tts_generate job whose node_id is not a UUID, or whose rate is text, fails at once naming the field', async () => {
    const badId = await enqueueRaw('tts_generate', { node_id: 'not-a-node' });
    const badRate = await enqueueRaw('tts_generate', { node_id: '00000000-0000-4000-8000-000000000000', rate: 'fast' });
    await runGovernedOnce(h);
    expect(await getJob(h.db, badId)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'invalid tts_generate payload: node_id: expected a UUID' });
    expect(await getJob(h.db, badRate)).toMatchObject({ status: 'failed', attempts: 1, last_error: expect.stringMatching(/^invalid tts_generate payload: rate: /) });
    expect(await workerJobsLeft()).toBe(0);
  });

  it('an orchestrate job whose event has no id fails at once naming event.id', async () => {
    const id = await enqueueRaw('orchestrate', { orchestration_id: '00000000-0000-4000-8000-000000000000', event: { type: 'node.created', depth: 0 } });
    await runGovernedOnce(h);
    expect(await getJob(h.db, id)).toMatchObject({ status: 'failed', attempts: 1, last_error: expect.stringMatching(/^invalid orchestrate payload: event\.id: /) });
    expect(await workerJobsLeft()).toBe(0);
  });
});
