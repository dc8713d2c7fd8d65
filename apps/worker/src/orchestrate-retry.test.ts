import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { OPERATOR } from '@inntak/access';
import { runOrchestration, setOrchestrationSecret } from '@inntak/orchestration';
import { PostgresOrchestrationStore } from '@inntak/postgres/orchestration';
import { runGovernedOnce } from './__tests__/run-governed-once.js';
import { addOrchestration, alice, h, logOf, setupOrchestrationScene } from './__tests__/orchestration-scene.js';

// http_post's retry against a real server (5xx and timeouts retried, 4xx not) and secrets in its
// headers (sent, never logged), issue 27.

setupOrchestrationScene();

let server: Server;
let host: string;
/** Statuses to answer, in order; then 200. */
let answers: number[] = [];
const seen: Array<{ path: string; authorization?: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ path: req.url ?? '', authorization: req.headers.authorization });
    req.resume();
    const status = answers.shift() ?? 200;
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ status, echo: req.headers.authorization ?? null }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/**
 * Runs the orchestration's run to its end: a retry's wait queues it again with a later run_at
 * (issue 35), which is moved to now here rather than waited for.
 */
async function runToEnd(orchestrationId: string): Promise<void> {
  for (;;) {
    await runGovernedOnce(h, { httpAllow: [host], cliAllow: [] });
    const run = await h.db.selectFrom('orchestration_runs').select(['status', 'job_id']).where('orchestration_id', '=', orchestrationId).executeTakeFirstOrThrow();
    if (run.status !== 'queued') return;
    await sql`select graphile_worker.reschedule_jobs(array[(select id from graphile_worker.jobs where key = ${`inntak:${run.job_id}`})]::bigint[], run_at := now())`.execute(h.db);
  }
}

const post = (path: string, extra = '') =>
  `steps:\n  - action: http_post\n    with: { url: "http://${host}${path}", headers: { Authorization: "Bearer {secrets.HOOK}" } }\n    retry: { attempts: 3, backoff: 0.05 }\n${extra}`;

describe('http_post retry and secrets', () => {
  it('two 503s then 200: three attempts, one ok row; the secret was sent and is not in the log', async () => {
    const o = await addOrchestration(alice, { event: 'manual' }, post('/ok'));
    await setOrchestrationSecret(new PostgresOrchestrationStore(h.db), OPERATOR, o, 'HOOK', 'topp-hemmelig');
    answers = [503, 503];
    seen.length = 0;
    await runOrchestration(new PostgresOrchestrationStore(h.db), OPERATOR, o, {});
    await runToEnd(o);
    expect(seen).toEqual(Array.from({ length: 3 }, () => ({ path: '/ok', authorization: 'Bearer topp-hemmelig' })));
    const log = await logOf(o);
    expect(log.map((r) => r.status)).toEqual(['ok']);
    // The server echoed the header into its answer: the log shows it redacted.
    expect(JSON.stringify(log)).not.toContain('topp-hemmelig');
    expect(log[0]!.output).toMatchObject({ status: 200, json: { echo: 'Bearer [hemmelig]' } });
    // Each retried attempt's error is kept on the run (039: the job that waited ended well), for the console.
    const run = await h.db.selectFrom('orchestration_runs').select(['attempts', 'status']).where('orchestration_id', '=', o).executeTakeFirstOrThrow();
    expect(run.status).toBe('completed');
    expect(run.attempts).toEqual([1, 2].map((attempt) => expect.objectContaining({ step: 1, attempt, error: expect.stringMatching(/503/), job_id: expect.any(Number), at: expect.any(String) })));
    expect(JSON.stringify(run.attempts)).not.toContain('topp-hemmelig');
  });

  it('a 404 is not retried: one attempt, the step fails', async () => {
    const o = await addOrchestration(alice, { event: 'manual' }, post('/missing'));
    await setOrchestrationSecret(new PostgresOrchestrationStore(h.db), OPERATOR, o, 'HOOK', 'x-secret');
    answers = [404];
    seen.length = 0;
    await runOrchestration(new PostgresOrchestrationStore(h.db), OPERATOR, o, {});
    await runToEnd(o);
    expect(seen).toHaveLength(1);
    expect((await logOf(o))[0]).toMatchObject({ status: 'failed', error: expect.stringMatching(/svarte 404/) });
  });
});
