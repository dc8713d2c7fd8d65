import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { OPERATOR } from '@inntak/access';
import { runOrchestration } from '@inntak/orchestration';
import { PostgresOrchestrationStore } from '@inntak/postgres/orchestration';
import { addOrchestration, alice, h, logOf, setupOrchestrationScene } from './__tests__/orchestration-scene.js';
import { spawnWorker, waitFor, type WorkerProcessHandle } from './__tests__/worker-process.js';

// A worker SIGKILLed while an orchestration run's http_post waits for its answer (issue 38): the
// run used to stay `running` forever. Real worker processes, a real HTTP server.

setupOrchestrationScene();

let server: Server;
let host: string;
const seen: string[] = [];
/** Called when a request to /two arrives and is held without an answer. */
let onHeld: (() => void) | undefined;
const workers: WorkerProcessHandle[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    req.resume();
    if (req.url === '/two' && onHeld) {
      const held = onHeld;
      onHeld = undefined;
      held();
      return; // never answered: the worker dies waiting
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  for (const w of workers.splice(0)) {
    if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await w.exited;
  }
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(resolve));
});

const worker = async () => {
  const w = await spawnWorker(h.url, { ORCHESTRATION_HTTP_ALLOW: host });
  workers.push(w);
  return w;
};
const TWO_POSTS = () => `steps:\n  - action: http_post\n    with: { url: "http://${host}/one" }\n  - action: http_post\n    with: { url: "http://${host}/two" }\n`;

/** Starts a run on a worker and SIGKILLs that worker while step 2's http_post waits for its answer. */
async function killedDuringStepTwo(before?: (orchestrationId: string) => Promise<void>): Promise<string> {
  const o = await addOrchestration(alice, { event: 'manual' }, TWO_POSTS());
  seen.length = 0;
  const first = await worker();
  const held = new Promise<void>((resolve) => (onHeld = resolve));
  await runOrchestration(new PostgresOrchestrationStore(h.db), OPERATOR, o, {});
  await held;
  await before?.(o);
  first.child.kill('SIGKILL');
  await first.exited;
  return o;
}

const runOf = (o: string) => h.db.selectFrom('orchestration_runs').select(['status', 'failed_step', 'lost_workers']).where('orchestration_id', '=', o).executeTakeFirstOrThrow();

describe('a run whose worker died', () => {
  it('is taken up again by another worker at its unfinished step: step 1 is not sent again, step 2 is (and the log says it may have been sent twice)', async () => {
    const o = await killedDuringStepTwo();
    await worker();
    const run = await waitFor(async () => {
      const r = await runOf(o);
      return r.status === 'completed' && r;
    }, 30_000);
    expect(run.lost_workers).toBe(1);
    expect(seen).toEqual(['/one', '/two', '/two']);
    const log = await logOf(o);
    expect(log.map((r) => [r.step, r.status])).toEqual([
      [1, 'ok'],
      [2, 'failed'],
      [2, 'ok'],
    ]);
    expect(log[1]!.error).toMatch(/^Arbeideren stoppet under kjøringen \(worker lost\); kjøringen tas opp igjen fra steg 2\. .*http_post kan bli sendt to ganger/);
    // The dead job's own record says what happened to it, not that it was released for a retry.
    const { rows } = await sql<{ last_error: string }>`select last_error from job_queue where job_type = 'orchestrate' and status = 'failed' order by id desc limit 1`.execute(h.db);
    expect(rows[0]!.last_error).toMatch(/stopped \(no heartbeat\); no attempts left \(1 of 1\), job failed$/);
  }, 60_000);

  it('past its resumptions it ends failed, "worker lost", at the step under way; it is never left running', async () => {
    const o = await killedDuringStepTwo((id) => sql`update orchestration_runs set lost_workers = 2 where orchestration_id = ${id}`.execute(h.db).then(() => {}));
    await worker();
    const run = await waitFor(async () => {
      const r = await runOf(o);
      return r.status !== 'running' && r;
    }, 30_000);
    expect(run).toEqual({ status: 'failed', failed_step: 2, lost_workers: 3 });
    expect(seen).toEqual(['/one', '/two']);
    expect((await logOf(o)).at(-1)).toMatchObject({ step: 2, status: 'failed', error: expect.stringMatching(/\(worker lost\) for 3\. gang; kjøringen er avsluttet som feilet/) });
  }, 60_000);
});
