import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { spawnWorker, waitFor, type WorkerProcessHandle } from '../../../worker/src/__tests__/worker-process.js';
import type { ApiServer } from '../api-server.js';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { connectStream, startApiInstance, type StreamClient } from '../__tests__/realtime-helpers.js';

// Two API instances (each with its realtime listener) and two worker processes on one database:
// a matching event still queues exactly one orchestrate job, and runs exactly once.
let ctx: TestContext;
const apis: ApiServer[] = [];
const workers: WorkerProcessHandle[] = [];
let stream: StreamClient;

beforeAll(async () => {
  ctx = await setupTestContext();
  apis.push(await startApiInstance(ctx), await startApiInstance(ctx));
  workers.push(await spawnWorker(ctx.testDb.url), await spawnWorker(ctx.testDb.url));
  stream = await connectStream(apis[0]!.url, await ctx.tokenFor('owner-subject'));
}, 60_000);
afterAll(async () => {
  stream.close();
  await Promise.all(workers.map((w) => w.stop()));
  await Promise.all(apis.map((a) => a.close()));
  await ctx.close();
});

async function post(api: ApiServer, path: string, body: unknown): Promise<{ status: number; body: { id: string } }> {
  const res = await fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { authorization: await ctx.ownerAuthorization(), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { id: string } };
}

describe('exactly once with two API instances and two workers', () => {
  it('each matching node created through either instance queues and runs one orchestrate job', async () => {
    const orchestration = await post(apis[0]!, '/intentions/create_node', {
      node_kind: 'orchestration',
      content: 'steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: runs, value: "{event.node.title}" }\n',
      metadata: { trigger: { event: 'node.created', conditions: { node_kind: 'content' } } },
    });
    expect(orchestration.status).toBe(201);
    const nodes: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await post(apis[i % 2]!, '/intentions/create_node', { node_kind: 'content', title: `n${i}`, collection_id: ctx.collectionId });
      expect(res.status).toBe(201);
      nodes.push(res.body.id);
    }
    const db = ctx.database.db;
    await waitFor(async () => {
      const { rows } = await sql<{ n: string }>`select count(*) as n from job_queue where job_type = 'orchestrate' and status = 'completed'`.execute(db);
      return Number(rows[0]!.n) === nodes.length;
    }, 30_000);
    const jobs = await sql<{ n: string }>`select count(*) as n from job_queue where job_type = 'orchestrate'`.execute(db);
    expect(Number(jobs.rows[0]!.n)).toBe(nodes.length);
    const log = await db.selectFrom('orchestration_log').select(['event', 'status']).where('orchestration_id', '=', orchestration.body.id).execute();
    expect(log.map((r) => (r.event as { id: string }).id).sort()).toEqual([...nodes].sort());
    expect(log.every((r) => r.status === 'ok')).toBe(true);
    // The stream saw them too, from the same changes.
    await waitFor(async () => nodes.every((id) => stream.of('node.created', id).length === 1));
  }, 60_000);
});
