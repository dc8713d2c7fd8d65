import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { enqueueJob, getJob } from '@inntak/postgres/jobs';
import { OPERATOR, createNode } from '@inntak/access';
import { runOrchestration } from '@inntak/orchestration';
import { PostgresOrchestrationStore } from '@inntak/postgres/orchestration';
import { runGovernedOnce } from './__tests__/run-governed-once.js';
import { addOrchestration, alice, bob, h, logOf, setupOrchestrationScene } from './__tests__/orchestration-scene.js';
import { storesOn } from '@inntak/postgres/testing';

// One login holds every worker slot (issue 35, finding 3): http_post's retry slept inside the job
// (60 + 120 + 240 + 480 s, past the 600 s timeout) and orchestrate could take all three slots, so
// another person's reading waited minutes. Against a real graphile-worker and local HTTP servers.

setupOrchestrationScene();

let server: Server;
let host: string;
/** Statuses to answer, in order; 'hold' keeps the request open until release(). */
let answers: Array<number | 'hold'> = [];
let requests = 0;
let open = 0;
const held: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests++;
    req.resume();
    const answer = answers.shift() ?? 200;
    if (answer === 'hold') {
      open++;
      res.on('close', () => open--);
      held.push(res);
      return;
    }
    res.writeHead(answer, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const runOf = (orchestrationId: string) => h.db.selectFrom('orchestration_runs').selectAll().where('orchestration_id', '=', orchestrationId).executeTakeFirstOrThrow();

describe('a retry waits without a worker slot (issue 35, finding 3)', () => {
  it('a 503 with attempts left queues the run again with a later run_at instead of sleeping in the job; the job then run succeeds, one log row', async () => {
    const o = await addOrchestration(alice, { event: 'manual' }, `steps:\n  - action: http_post\n    with: { url: "http://${host}/hook", body: {} }\n    retry: { attempts: 3, backoff: 60 }\n`);
    answers = [503];
    requests = 0;
    await runOrchestration(new PostgresOrchestrationStore(h.db), OPERATOR, o, {});
    const before = Date.now();
    // Before the fix this job slept 60 s here, holding its slot (and the test times out).
    await runGovernedOnce(h, { httpAllow: [host], cliAllow: [] });
    expect(requests).toBe(1);
    const run = await runOf(o);
    expect(run.status).toBe('queued');
    expect(await logOf(o)).toEqual([]);
    const next = await getJob(h.db, Number(run.job_id));
    expect(next).toMatchObject({ job_type: 'orchestrate', status: 'queued', payload: { orchestration_id: o, retry: { step: 1, attempt: 2 } } });
    const { rows } = await sql<{ run_at: Date }>`select run_at from graphile_worker.jobs where key = ${`inntak:${run.job_id}`}`.execute(h.db);
    expect(rows[0]!.run_at.getTime()).toBeGreaterThanOrEqual(before + 59_000);

    // Its time has come (moved forward, not waited for): the second attempt succeeds.
    await sql`select graphile_worker.reschedule_jobs(array[(select id from graphile_worker.jobs where key = ${`inntak:${run.job_id}`})]::bigint[], run_at := now())`.execute(h.db);
    await runGovernedOnce(h, { httpAllow: [host], cliAllow: [] });
    expect(requests).toBe(2);
    expect((await runOf(o)).status).toBe('completed');
    expect((await logOf(o)).map((r) => r.status)).toEqual(['ok']);
  });
});

describe('orchestrate takes at most two of the three slots (issue 35, finding 3)', () => {
  it('three runs of one login hung on a host leave a slot: another person’s reading starts and completes while two of them still wait', async () => {
    const o = await addOrchestration(alice, { event: 'manual' }, `steps:\n  - action: http_post\n    with: { url: "http://${host}/treg", body: {} }\n`);
    answers = ['hold', 'hold', 'hold'];
    for (let i = 0; i < 3; i++) await runOrchestration(new PostgresOrchestrationStore(h.db), OPERATOR, o, {});
    const node = (await createNode(storesOn(h.db).graph, bob, { node_kind: 'content', title: 'Bobs nyhet' })).id;
    const reading = await enqueueJob(h.db, 'tts_generate', { node_id: node, requested_by: bob.personId });

    const runners = runGovernedOnce(h, { httpAllow: [host], cliAllow: [] }, undefined, { runners: 3 });
    // Generous: a hang here is the failure (before the fix the reading waited for the hung posts).
    for (let waited = 0; (await getJob(h.db, reading))?.status !== 'completed'; waited += 50) {
      if (waited > 60_000) throw new Error('the reading never ran');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(open).toBe(2);
    const statuses = await h.db.selectFrom('orchestration_runs').select('status').where('orchestration_id', '=', o).execute();
    expect(statuses.map((r) => r.status).sort()).toEqual(['queued', 'running', 'running']);

    answers = [];
    for (const res of held.splice(0)) res.writeHead(200).end('{}');
    await runners;
    const done = await h.db.selectFrom('orchestration_runs').select('status').where('orchestration_id', '=', o).execute();
    expect(done.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
  });
});
