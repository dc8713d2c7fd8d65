import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { recordLogEntry } from '@inntak/postgres/orchestration';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { get, logIn, postForm, studioApp, type Browser } from '../__tests__/studio-scene.js';

const SCRIPT = 'steps:\n  - action: create_node\n    with: { node_kind: content, title: "Sett: {event.node.title}" }\n';

let ctx: TestContext;
let app: Express;
let owner: Browser;
let member: Browser;
let stranger: Browser;
let orchestration: string;
let manual: string;
let jobId: number;

beforeAll(async () => {
  ctx = await setupTestContext();
  app = studioApp(ctx);
  const memberPerson = await ctx.addPerson('medlem');
  await ctx.addPerson('fremmed');
  const authorization = await ctx.ownerAuthorization();
  await request(app).post('/intentions/grant_access').set('Authorization', authorization).send({ subject_id: memberPerson.id, object_id: ctx.collectionId, access: 'member' });
  const res = await request(app)
    .post('/intentions/create_node')
    .set('Authorization', authorization)
    .send({ node_kind: 'orchestration', title: 'Kopier <alt>', content: SCRIPT, collection_id: ctx.collectionId, metadata: { trigger: { event: 'node.created', conditions: { node_kind: 'aldri' } } } });
  expect(res.status).toBe(201);
  orchestration = res.body.id;
  const event = { type: 'node.created' as const, id: '0190a0a0-0000-7000-8000-000000000001', depth: 0 };
  await recordLogEntry(ctx.database.db, { orchestrationId: orchestration, jobId: null, event, record: { step: 1, action: 'create_node', fallback: null, status: 'ok', output: { id: 'n1' }, duration_ms: 3 } });
  await recordLogEntry(ctx.database.db, { orchestrationId: orchestration, jobId: null, event, record: { step: 2, action: 'http_post', fallback: null, status: 'failed', error: 'nei <takk>', duration_ms: 5 } });
  // A manual one, run once through the API: its run, and a step logged under the run's job.
  const made = await request(app)
    .post('/intentions/create_node')
    .set('Authorization', authorization)
    .send({ node_kind: 'orchestration', title: 'For hånd', content: 'steps:\n  - action: create_node\n    with: { node_kind: content, title: "Bestilt: {event.input.hva}" }\n', collection_id: ctx.collectionId, metadata: { trigger: { event: 'manual' } } });
  expect(made.status).toBe(201);
  manual = made.body.id;
  const run = await request(app).post('/intentions/run_orchestration').set('Authorization', authorization).send({ id: manual });
  expect(run.status).toBe(202);
  jobId = run.body.job_id;
  await recordLogEntry(ctx.database.db, { orchestrationId: manual, jobId, event: { type: 'manual', id: run.body.run_id, depth: 0 }, record: { step: 1, action: 'create_node', fallback: null, status: 'ok', output: { id: 'n9' }, duration_ms: 7 } });
  owner = await logIn(app, 'owner-subject');
  member = await logIn(app, 'medlem');
  stranger = await logIn(app, 'fremmed');
});
afterAll(() => ctx.close());

describe('orchestration pages', () => {
  it('list the orchestrations per collection for their administrators only', async () => {
    const page = await get(app, owner, '/studio/orkestreringer');
    expect(page.text).toContain('<h2 id="s-' + ctx.collectionId + '">Innboks</h2>');
    expect(page.text).toContain('Kopier &lt;alt&gt;</a>: utløses av node.created');
    expect((await get(app, member, '/studio/orkestreringer')).text).not.toContain('Kopier &lt;alt&gt;');
  });

  it('show the runs with one log row per step, escaped', async () => {
    const page = await get(app, owner, `/studio/orkestreringer/${orchestration}`);
    expect(page.status).toBe(200);
    expect((page.text.match(/<tr><td><time/g) ?? []).length).toBe(2);
    expect(page.text).toContain('nei &lt;takk&gt;');
  });

  it("show each run with its own step rows", async () => {
    const page = await get(app, owner, `/studio/orkestreringer/${manual}`);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<h3 id="kjoring-[^"]+">Kjøring <time[^>]*>[^<]*<\/time>: i kø<\/h3>/);
    expect(page.text).toContain('<td>create_node</td><td>ok</td><td>7 ms</td>');
    expect(page.text).not.toContain('Loggrader uten kjøring');
  });

  it('turn an orchestration off and on through set_orchestration_enabled; a member may not (403)', async () => {
    expect((await postForm(app, member, `/studio/orkestreringer/${manual}/aktiv`, { enabled: 'false' })).status).toBe(403);
    const off = await postForm(app, owner, `/studio/orkestreringer/${manual}/aktiv`, { enabled: 'false', tilbake: `/studio/orkestreringer/${manual}` });
    expect(off.status).toBe(303);
    expect(off.headers.location).toBe(`/studio/orkestreringer/${manual}?ok=av`);
    const enabled = async () => (await ctx.database.pool.query(`select metadata -> 'enabled' as e from nodes where id = $1`, [manual])).rows[0].e;
    expect(await enabled()).toBe(false);
    expect((await get(app, owner, '/studio/orkestreringer')).text).toMatch(/For hånd<\/a>: utløses av manual; slått av/);
    expect((await postForm(app, owner, `/studio/orkestreringer/${manual}/aktiv`, { enabled: 'true' })).status).toBe(303);
    expect(await enabled()).toBe(true);
  });

  it('answer 404 to a stranger and 403 to a member, as the log route does', async () => {
    expect((await get(app, stranger, `/studio/orkestreringer/${orchestration}`)).status).toBe(404);
    expect((await get(app, member, `/studio/orkestreringer/${orchestration}`)).status).toBe(403);
  });
});
