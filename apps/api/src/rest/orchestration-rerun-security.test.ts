import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { runGovernedOnce } from '../../../worker/src/__tests__/run-governed-once.js';
import { ctx, owner, post, setupOwnerScene } from '../__tests__/owner-scene.js';

// Issue 35, finding 2 (docs/security.md, "Fifth attack"): a co-admin took the orchestration over
// (its secrets dropped, as designed) and re-ran one of its creator's stopped runs, whose stored
// outputs held a server's echo of the creator's secret: the new script wrote it into a node title.

setupOwnerScene();

let server: Server;
let host: string;
const SECRET = 'eierens-hemmelige-token';

beforeAll(async () => {
  // A hook that answers with the Authorization header it got, as many chat and CI servers do in an error.
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ echo: req.headers.authorization ?? null }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const worker = () => runGovernedOnce(ctx.database, { httpAllow: [host], cliAllow: [] });

/** The owner's orchestration: posts with their secret, then fails at step 2 (a node that does not exist), so the run stops there. */
async function ownersStoppedRun(): Promise<{ id: string; runId: string }> {
  const script =
    `steps:\n  - action: http_post\n    with: { url: "http://${host}/krok", headers: { Authorization: "Bearer {secrets.CHAT_TOKEN}" } }\n` +
    `  - action: set_metadata\n    with: { node_id: "00000000-0000-4000-8000-000000000000", key: sett, value: true }\n`;
  const made = await post('/intentions/create_node', owner, { node_kind: 'orchestration', title: 'Til chatten', content: script, metadata: { trigger: { event: 'manual' } }, collection_id: ctx.collectionId });
  expect(made.status).toBe(201);
  const id = made.body.id as string;
  await post('/intentions/set_orchestration_secret', owner, { id, name: 'CHAT_TOKEN', value: SECRET }).expect(200);
  const run = await post('/intentions/run_orchestration', owner, { id, input: {} }).expect(202);
  await worker();
  const row = await ctx.database.db.selectFrom('orchestration_runs').select(['status', 'failed_step']).where('id', '=', run.body.run_id).executeTakeFirstOrThrow();
  expect(row).toEqual({ status: 'stopped', failed_step: 2 });
  return { id, runId: run.body.run_id };
}

/** A co-admin of the collection takes the orchestration over with a script that writes step 1's output into a node title. */
async function takeOver(id: string, subject: string): Promise<{ id: string; authorization: string }> {
  const admin = await ctx.addPerson(subject);
  await post('/intentions/grant_access', owner, { subject_id: admin.id, object_id: ctx.collectionId, access: 'admin' }).expect(200);
  const script =
    `steps:\n  - action: http_post\n    with: { url: "http://${host}/krok" }\n` +
    `  - action: create_node\n    with: { node_kind: content, title: "Fanget: {steps.1.output.body}", collection_id: "${ctx.collectionId}" }\n`;
  const res = await post('/intentions/update_orchestration', admin.authorization, { id, script });
  expect(res.status).toBe(200);
  expect(res.body.runs_as).toBe(admin.id);
  return admin;
}

const caught = () => ctx.database.db.selectFrom('nodes').select('title').where('title', 'like', 'Fanget:%').execute();

describe('a re-run after the orchestration changed hands (issue 35, finding 2)', () => {
  it("an admin who took the orchestration over cannot re-run its creator's stopped run: 409, and the creator's secret reaches no node", async () => {
    const { id, runId } = await ownersStoppedRun();
    const admin = await takeOver(id, 'overtaker');
    const res = await post('/intentions/rerun_orchestration', admin.authorization, { run_id: runId });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('Kjøringen ble gjort som en annen enn den orkestreringen nå kjører som; start en ny kjøring i stedet');
    await worker();
    expect((await caught()).map((n) => n.title).join()).not.toContain(SECRET);
  });

  it('a re-run queued before the takeover is not run by the new script: logged as skipped, the secret reaches no node', async () => {
    const { id, runId } = await ownersStoppedRun();
    const again = await post('/intentions/rerun_orchestration', owner, { run_id: runId }).expect(202);
    await takeOver(id, 'overtaker-etterpaa');
    await worker();
    const row = await ctx.database.db.selectFrom('orchestration_runs').select('status').where('id', '=', again.body.run_id).executeTakeFirstOrThrow();
    expect(row.status).toBe('skipped');
    expect((await caught()).map((n) => n.title).join()).not.toContain(SECRET);
  });

  it("stores a step's output with the secrets redacted, as the log does, and the one it runs as may still re-run it", async () => {
    const { runId } = await ownersStoppedRun();
    const stored = await ctx.database.db.selectFrom('orchestration_runs').select('outputs').where('id', '=', runId).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored.outputs)).not.toContain(SECRET);
    expect(JSON.stringify(stored.outputs)).toContain('Bearer [hemmelig]');
    const again = await post('/intentions/rerun_orchestration', owner, { run_id: runId });
    expect(again.status).toBe(202);
    await worker();
    const row = await ctx.database.db.selectFrom('orchestration_runs').select(['status', 'failed_step']).where('id', '=', again.body.run_id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'stopped', failed_step: 2 });
  });
});
