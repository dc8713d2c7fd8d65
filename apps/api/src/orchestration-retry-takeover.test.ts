import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { runGovernedOnce } from '../../worker/src/__tests__/run-governed-once.js';
import { ctx, owner, post, setupOwnerScene } from './__tests__/owner-scene.js';

// Found attacking the merged result of issue 35 (docs/security.md, "Fifth attack (issue 35)",
// "Found on the merged result"): a run waiting for a retry (queued again with a later run_at,
// finding 3) went on after a co-admin took the orchestration over, as them, with the outputs of
// the steps its creator's script had run: the takeover's script read the creator's answers, the
// re-run that finding 2 closed, through the retry's queue.

setupOwnerScene();

let server: Server;
let host: string;
let flaky = 0;
const PRIVATE = 'eierens-private-svar';

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    if (req.url === '/privat') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ svar: PRIVATE }));
    // The flaky hook fails once, then answers.
    if (req.url === '/ustabil' && flaky++ === 0) return void res.writeHead(503).end('{}');
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const worker = () => runGovernedOnce(ctx.database, { httpAllow: [host], cliAllow: [] });
const caught = () => ctx.database.db.selectFrom('nodes').select('title').where('title', 'like', 'Fanget:%').execute();

describe('a run waiting for a retry when the orchestration changes hands', () => {
  it("does not go on as the one who took it over: logged as skipped, and the creator's answers reach no node", async () => {
    const script =
      `steps:\n  - action: http_post\n    with: { url: "http://${host}/privat" }\n` +
      `  - action: http_post\n    with: { url: "http://${host}/ustabil" }\n    retry: { attempts: 2, backoff: 60 }\n`;
    const made = await post('/intentions/create_node', owner, { node_kind: 'orchestration', title: 'Eierens', content: script, metadata: { trigger: { event: 'manual' } }, collection_id: ctx.collectionId });
    expect(made.status).toBe(201);
    const id = made.body.id as string;
    const run = await post('/intentions/run_orchestration', owner, { id, input: {} }).expect(202);
    await worker();
    const waiting = await ctx.database.db.selectFrom('orchestration_runs').select(['status', 'job_id', 'runs_as']).where('id', '=', run.body.run_id).executeTakeFirstOrThrow();
    expect(waiting).toMatchObject({ status: 'queued', runs_as: ctx.ownerId });

    // A co-admin takes it over while it waits, with a script whose step 2 writes step 1's output into a node.
    const admin = await ctx.addPerson('venter-overtaker');
    await post('/intentions/grant_access', owner, { subject_id: admin.id, object_id: ctx.collectionId, access: 'admin' }).expect(200);
    const theirs =
      `steps:\n  - action: http_post\n    with: { url: "http://${host}/annet" }\n` +
      `  - action: create_node\n    with: { node_kind: content, title: "Fanget: {steps.1.output.body}", collection_id: "${ctx.collectionId}" }\n`;
    await post('/intentions/update_orchestration', admin.authorization, { id, script: theirs }).expect(200);

    await sql`select graphile_worker.reschedule_jobs(array[(select id from graphile_worker.jobs where key = ${`inntak:${waiting.job_id}`})]::bigint[], run_at := now())`.execute(ctx.database.db);
    await worker();
    expect((await caught()).map((n) => n.title).join()).not.toContain(PRIVATE);
    const row = await ctx.database.db.selectFrom('orchestration_runs').select('status').where('id', '=', run.body.run_id).executeTakeFirstOrThrow();
    expect(row.status).toBe('skipped');
  });
});
