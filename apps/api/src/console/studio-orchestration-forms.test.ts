import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Express } from 'express';
import { PostgresOrchestrationStore } from '@inntak/postgres/orchestration';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { get, logIn, postForm, studioApp, type Browser } from '../__tests__/studio-scene.js';

// Issue 39: an orchestration's script edited in the console with the validator's line and
// column on the page, a new one in a collection, a run with input, a re-run, and the attempts.
const MANUAL = 'steps:\n  - action: create_node\n    with: { node_kind: content, title: "Bestilt: {event.input.hva}" }\n';
const BROKEN = 'steps:\n  - action: create_node\n    with: { node_kind: content, title: "x" }\n  - action: fly_away\n';

let ctx: TestContext;
let app: Express;
let owner: Browser;
let outsider: Browser;
let orchestration: string;

const runsOf = async (id: string) =>
  (await ctx.database.pool.query<{ id: string; status: string; event: { input?: unknown }; rerun_of: string | null; from_step: number }>(`select id, status, event, rerun_of, from_step from orchestration_runs where orchestration_id = $1 order by created_at`, [id])).rows;

beforeAll(async () => {
  ctx = await setupTestContext();
  app = studioApp(ctx);
  await ctx.addPerson('utenfor');
  owner = await logIn(app, 'owner-subject');
  outsider = await logIn(app, 'utenfor');
});
afterAll(() => ctx.close());

describe('a new orchestration in a collection', () => {
  it('shows a script error with its line and column beside the field, keeps the text, and saves nothing', async () => {
    const res = await postForm(app, owner, '/studio/orkestreringer/ny', { collection_id: ctx.collectionId, title: 'For hånd', event: 'manual', script: BROKEN });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/<p class="field-error" id="script-feil">linje 4, kolonne \d+: [^<]+<\/p>/);
    expect(res.text).toContain('fly_away');
    expect((await ctx.database.pool.query(`select 1 from nodes where node_kind = 'orchestration'`)).rowCount).toBe(0);
  });

  it('names a trigger problem on its field', async () => {
    const res = await postForm(app, owner, '/studio/orkestreringer/ny', { collection_id: ctx.collectionId, title: 'Plan', event: 'schedule', script: MANUAL });
    expect(res.status).toBe(400);
    expect(res.text).toContain('<p class="field-error" id="cron-feil">«Tidsplan (cron, fem felt, UTC)»: mangler (fem felt, UTC)</p>');
  });

  it('creates it as the caller, in the collection and observing it', async () => {
    const res = await postForm(app, owner, '/studio/orkestreringer/ny', { collection_id: ctx.collectionId, title: 'For hånd', event: 'manual', script: MANUAL });
    expect(res.status).toBe(303);
    orchestration = /\/studio\/orkestreringer\/([0-9a-f-]{36})\?ok=opprettet/.exec(res.headers.location!)![1]!;
    const edges = await ctx.database.pool.query<{ edge_type: string }>(`select edge_type from edges where source_id = $1 and target_id = $2 order by edge_type`, [orchestration, ctx.collectionId]);
    expect(edges.rows.map((e) => e.edge_type)).toEqual(['belongs_to', 'observes']);
    const node = await ctx.database.pool.query(`select created_by from nodes where id = $1`, [orchestration]);
    expect(node.rows[0].created_by).toBe(ctx.ownerId);
  });

  it('is refused to a person who is no member of the collection', async () => {
    const res = await postForm(app, outsider, '/studio/orkestreringer/ny', { collection_id: ctx.collectionId, title: 'Min', event: 'manual', script: MANUAL });
    expect([403, 404]).toContain(res.status);
  });
});

describe("an orchestration's script", () => {
  it('is shown in a labelled field', async () => {
    const page = await get(app, owner, `/studio/orkestreringer/${orchestration}`);
    expect(page.text).toContain('<label for="script">Skript</label>');
    expect(page.text).toContain('Bestilt: {event.input.hva}');
  });

  it('refuses a broken script with «linje L, kolonne C» beside the field, and keeps the saved one', async () => {
    const res = await postForm(app, owner, `/studio/orkestreringer/${orchestration}/skript`, { title: 'For hånd', script: BROKEN });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/id="script-feil">linje 4, kolonne \d+: /);
    expect(res.text).toContain('aria-invalid="true"');
    expect((await ctx.database.pool.query(`select content from nodes where id = $1`, [orchestration])).rows[0].content).toBe(MANUAL);
  });

  it('saves a good one through update_orchestration', async () => {
    const changed = MANUAL.replace('Bestilt', 'Bestilling');
    const res = await postForm(app, owner, `/studio/orkestreringer/${orchestration}/skript`, { title: 'For hånd 2', script: changed });
    expect(res.status).toBe(303);
    const row = (await ctx.database.pool.query(`select title, content from nodes where id = $1`, [orchestration])).rows[0];
    expect(row).toEqual({ title: 'For hånd 2', content: changed });
  });

  it('is not changed, nor shown, to a person outside the collection (404, as the API)', async () => {
    expect((await postForm(app, outsider, `/studio/orkestreringer/${orchestration}/skript`, { title: 'x', script: MANUAL })).status).toBe(404);
    expect((await get(app, outsider, `/studio/orkestreringer/${orchestration}`)).status).toBe(404);
  });
});

describe('runs from the console', () => {
  it('runs it with input through run_orchestration; bad JSON is named on the field', async () => {
    const bad = await postForm(app, owner, `/studio/orkestreringer/${orchestration}/kjor`, { input: '{"hva": ' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('«Inndata (JSON-objekt)» er ikke gyldig JSON');
    const list = await postForm(app, owner, `/studio/orkestreringer/${orchestration}/kjor`, { input: '[1]' });
    expect(list.text).toContain('«Inndata (JSON-objekt)» må være et JSON-objekt');
    expect(await runsOf(orchestration)).toEqual([]);
    const ok = await postForm(app, owner, `/studio/orkestreringer/${orchestration}/kjor`, { input: '{"hva": "kaffe"}' });
    expect(ok.status).toBe(303);
    const [run] = await runsOf(orchestration);
    expect(run).toMatchObject({ status: 'queued', event: { input: { hva: 'kaffe' } } });
    const page = await get(app, owner, `/studio/orkestreringer/${orchestration}`);
    expect(page.text).toContain('Inndata: <code>{&quot;hva&quot;:&quot;kaffe&quot;}</code>');
  });

  it('re-runs an ended run from the start as a new run with the same input; a queued one is refused on the page', async () => {
    const [first] = await runsOf(orchestration);
    const early = await postForm(app, owner, `/studio/orkestreringer/${orchestration}/kjoringer/${first!.id}`, { fra: 'start' });
    expect(early.status).toBe(409);
    expect(early.text).toContain('bare en ferdig kjøring kan kjøres på nytt (denne er i kø)');
    await ctx.database.pool.query(`update orchestration_runs set status = 'completed', started_at = now(), finished_at = now(), runs_as = $2 where id = $1`, [first!.id, ctx.ownerId]);
    expect((await postForm(app, owner, `/studio/orkestreringer/${orchestration}/kjoringer/${first!.id}`, { fra: 'start' })).status).toBe(303);
    const runs = await runsOf(orchestration);
    expect(runs).toHaveLength(2);
    expect(runs[1]).toMatchObject({ status: 'queued', rerun_of: first!.id, from_step: 1, event: { input: { hva: 'kaffe' } } });
  });

  it("shows each retried attempt's error and time, as the worker keeps them on the run", async () => {
    const [, second] = await runsOf(orchestration);
    const job = (await ctx.database.pool.query<{ job_id: string }>(`select job_id from orchestration_runs where id = $1`, [second!.id])).rows[0]!.job_id;
    // What orchestrateEvent does when a step's retry waits: the run re-queued with the failed attempt.
    const store = new PostgresOrchestrationStore(ctx.database.db);
    await store.requeueRun(
      { runId: second!.id, jobId: Number(job) },
      { payload: { orchestration_id: orchestration, event: { type: 'manual', id: second!.id, depth: 0 }, root: second!.id, run_id: second!.id }, runAt: new Date(), outputs: {}, failed: { step: 1, attempt: 1, error: 'http_post: 503 <opptatt>', job_id: Number(job) } },
    );
    const page = await get(app, owner, `/studio/orkestreringer/${orchestration}`);
    expect(page.text).toContain('Forsøk: 2.');
    expect(page.text).toMatch(new RegExp(`<li><time datetime="[^"]+"[^>]*>[^<]+</time>: steg 1, forsøk 1 feilet \\(jobb ${job}\\): http_post: 503 &lt;opptatt&gt;</li>`));
  });
});
