import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { enqueueJob } from '@inntak/postgres/jobs';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { get, logIn, postForm, studioApp, type Browser } from '../__tests__/studio-scene.js';

let ctx: TestContext;
let app: Express;
let owner: Browser;
let member: Browser;
let stranger: Browser;
let sysadmin: Browser;
let pub: string;
let article: string;
let variants: string[];

async function api(path: string, body: object) {
  const res = await request(app).post(path).set('Authorization', await ctx.ownerAuthorization()).send(body);
  expect(res.status).toBeLessThan(300);
  return res.body;
}

beforeAll(async () => {
  ctx = await setupTestContext();
  app = studioApp(ctx);
  const memberPerson = await ctx.addPerson('medlem');
  await ctx.addPerson('fremmed');
  await ctx.addPerson('drift', { admin: true });
  pub = (await api('/intentions/create_publication', { title: 'Fjordposten', slug: 'fjordposten' })).id;
  await api('/intentions/grant_access', { subject_id: memberPerson.id, object_id: pub, access: 'member' });
  article = (await api('/intentions/create_node', { node_kind: 'content', title: 'Brua åpner', content: 'Tekst.' })).id;
  await api('/intentions/publish_article', { publication_id: pub, node_id: article });
  variants = [];
  for (const title of ['Brua åpner i dag', 'Endelig: brua er klar!']) {
    variants.push((await api('/intentions/create_variant', { publication_id: pub, article_id: article, variant_type: 'headline', title })).edge_id);
  }
  // The test's round began three hours ago; counted impressions and clicks over two hours since, as the recorder writes them.
  await ctx.database.pool.query(`update ab_tests set round_started_at = now() - interval '3 hours' where article_id = $1`, [article]);
  await ctx.database.pool.query(
    `insert into ab_events (variant_edge_id, hour_of_week, impressions, clicks, recorded_at) values
     ($1, 1, 40, 2, now() - interval '2 hours'), ($2, 1, 40, 6, now() - interval '2 hours'),
     ($1, 2, 30, 1, now() - interval '1 hour'), ($2, 2, 30, 5, now() - interval '1 hour')`,
    variants,
  );
  owner = await logIn(app, 'owner-subject');
  member = await logIn(app, 'medlem');
  stranger = await logIn(app, 'fremmed');
  sysadmin = await logIn(app, 'drift');
});
afterAll(() => ctx.close());

describe('publication pages', () => {
  it('a stranger gets 404 for the publication and does not see it listed', async () => {
    expect((await get(app, stranger, `/studio/publikasjoner/${pub}`)).status).toBe(404);
    expect((await get(app, stranger, '/studio/publikasjoner')).text).not.toContain('Fjordposten');
  });

  it("shows the test: impressions, clicks, CTR with its interval, lift, status, why nothing is decided yet, and an SVG chart", async () => {
    const page = await get(app, owner, `/studio/publikasjoner/${pub}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<td>70</td><td>3</td>');
    expect(page.text).toContain('<td>70</td><td>11</td>');
    expect(page.text).toMatch(/4,3 %<\/td><td>[\d,]+ %–[\d,]+ %<\/td>/);
    expect(page.text).toContain('266,7 % flere klikk enn originalen, men usikkert: alt fra 100 % færre til');
    expect(page.text).toContain('For få visninger: hver variant trenger minst 100 i denne runden (færrest har 70).');
    expect(page.text).toMatch(/<svg class="lines" viewBox="0 0 600 200" preserveAspectRatio="none" role="img"[^>]*>/);
    expect((page.text.match(/<polyline fill="none"/g) ?? []).length).toBe(2);
  });

  it('a member sees the test but no "Velg som vinner" button, and the ab_override intention refuses them anyway (403)', async () => {
    const page = await get(app, member, `/studio/publikasjoner/${pub}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('For få visninger');
    expect(page.text).not.toContain('Velg som vinner');
    const res = await postForm(app, member, `/studio/publikasjoner/${pub}/vinner`, { edge_id: variants[1]!, bekreftet: 'ja' });
    expect(res.status).toBe(403);
    const { rows } = await ctx.database.pool.query(`select metadata ->> 'ab_status' as s from edges where id = $1`, [variants[1]]);
    expect(rows[0].s).toBe('testing');
  });

  it('the owner chooses a winner: it becomes winner, the other retired, and the front page shows it', async () => {
    expect((await get(app, owner, `/studio/publikasjoner/${pub}`)).text).toContain('Velg som vinner');
    // The test has not decided: the button leads to the confirmation page first (studio-ab-test.test.ts).
    const res = await postForm(app, owner, `/studio/publikasjoner/${pub}/vinner`, { edge_id: variants[1]!, bekreftet: 'ja' });
    expect(res.status).toBe(303);
    const page = await get(app, owner, res.headers.location!);
    expect(page.text).toContain('Avgjort: «Endelig: brua er klar!» vant (valgt av en redaktør)');
    const front = await request(app).get('/pub/fjordposten');
    expect(front.text).toContain('Endelig: brua er klar!');
    expect(front.text).not.toContain('Brua åpner i dag');
  });

  it('adds a headline variant (a new test), checked by create_variant’s own body schema', async () => {
    const bad = await postForm(app, owner, `/studio/publikasjoner/${pub}/varianter`, { article_id: article, variant_type: 'Stor Bokstav', title: 'X' });
    expect(bad.status).toBe(400);
    expect((await get(app, owner, `/studio/publikasjoner/${pub}`)).text).not.toContain('Stor Bokstav');
    const res = await postForm(app, owner, `/studio/publikasjoner/${pub}/varianter`, { article_id: article, variant_type: 'headline', title: 'Ny utfordrer', teaser: '' });
    expect(res.status).toBe(303);
    expect((await get(app, owner, `/studio/publikasjoner/${pub}`)).text).toContain('Ny utfordrer');
  });

  it('a refused form is shown again on its page: every bad field named in plain Norwegian beside it, the typed values kept', async () => {
    const long = 'x'.repeat(301);
    const res = await postForm(app, owner, `/studio/publikasjoner/${pub}/varianter`, { article_id: article, variant_type: 'headline', title: long, teaser: 'Behold meg' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('<h1>Fjordposten</h1>');
    expect(res.text).toContain('Skjemaet har en feil:');
    expect(res.text).toContain(`<a href="#title-${article}">«Tittel» kan ha høyst 300 tegn.</a>`);
    expect(res.text).toMatch(new RegExp(`<p class="field-error" id="title-${article}-feil">«Tittel» kan ha høyst 300 tegn.</p><input id="title-${article}" name="title" required aria-invalid="true" aria-describedby="title-${article}-feil"`));
    expect(res.text).toContain(`value="${long}"`);
    expect(res.text).toContain('>Behold meg</textarea>');
    const empty = await postForm(app, owner, `/studio/publikasjoner/${pub}/varianter`, { article_id: article, variant_type: '', title: '' });
    expect(empty.text).toContain('Skjemaet har 2 feil:');
    expect(empty.text).toContain('«Tittel» må fylles ut.');
  });

  it('unpublishes and publishes an article; a member may not (403)', async () => {
    const page = await get(app, owner, `/studio/publikasjoner/${pub}`);
    const edgeId = /name="edge_id" value="([^"]+)"><button type="submit">Avpubliser/.exec(page.text)![1]!;
    expect((await postForm(app, member, `/studio/publikasjoner/${pub}/avpubliser`, { edge_id: edgeId })).status).toBe(403);
    expect((await postForm(app, owner, `/studio/publikasjoner/${pub}/avpubliser`, { edge_id: edgeId })).status).toBe(303);
    expect((await get(app, owner, `/studio/publikasjoner/${pub}`)).text).toContain('Ingen publiserte artikler.');
    expect((await postForm(app, owner, `/studio/publikasjoner/${pub}/publiser`, { node_id: article })).status).toBe(303);
    expect((await get(app, owner, `/studio/publikasjoner/${pub}`)).text).toContain('Brua åpner');
  });
});

describe('system pages', () => {
  it('answer 403 to anyone but a system administrator, as /admin/jobs does', async () => {
    expect((await get(app, owner, '/studio/system')).status).toBe(403);
    expect((await postForm(app, owner, '/studio/system/regler', { job_type: 'render', cpu_weight: '2' })).status).toBe(403);
  });

  it('show job counts by status, the disk history as a chart, and edit a priority rule (update_rule)', async () => {
    await ctx.database.pool.query(
      `insert into disk_status_log (path, total_bytes, free_bytes, used_percent, level, measured_at) values
       ('/data', 100, 40, 60, 'ok', now() - interval '2 minutes'), ('/data', 100, 30, 70, 'ok', now() - interval '1 minute')`,
    );
    const page = await get(app, sysadmin, '/studio/system');
    expect(page.status).toBe(200);
    expect(page.text).toContain('i kø: 0');
    expect(page.text).toContain('Diskbruk over tid');
    expect(page.text).toMatch(/<polyline [^>]*points="[^"]+ [^"]+"/);
    const res = await postForm(app, sysadmin, '/studio/system/regler', { job_type: 'render', cpu_weight: '2', max_concurrent: '1', timeout: '120' });
    expect(res.status).toBe(303);
    const { rows } = await ctx.database.pool.query(`select cpu_weight, max_concurrent, timeout_seconds from job_priority_rules where job_type = 'render'`);
    expect(rows[0]).toEqual({ cpu_weight: 2, max_concurrent: 1, timeout_seconds: 120 });
    const bad = await postForm(app, sysadmin, '/studio/system/regler', { job_type: 'render', cpu_weight: 'mye' });
    expect(bad.status).toBe(400);
  });

  it('cancel a queued job and retry it through cancel_job and retry_job; a member may do neither (403)', async () => {
    const id = await enqueueJob(ctx.database.db, 'tts_generate', { node_id: 'n1' });
    const status = async () => (await ctx.database.pool.query(`select status from job_queue where id = $1`, [id])).rows[0].status;
    expect((await get(app, sysadmin, '/studio/system?status=queued')).text).toContain(`/studio/system/jobber/${id}/avbryt`);
    expect((await postForm(app, member, `/studio/system/jobber/${id}/avbryt`, {})).status).toBe(403);
    expect((await postForm(app, sysadmin, `/studio/system/jobber/${id}/avbryt`, {})).status).toBe(303);
    expect(await status()).toBe('cancelled');
    expect((await postForm(app, sysadmin, `/studio/system/jobber/${id}/prov-igjen`, {})).status).toBe(303);
    expect(await status()).toBe('queued');
    expect((await postForm(app, sysadmin, `/studio/system/jobber/${id}/prov-igjen`, {})).status).toBe(409);
  });

  it('the menu shows System only to system administrators', async () => {
    expect((await get(app, sysadmin, '/studio')).text).toContain('href="/studio/system"');
    expect((await get(app, owner, '/studio')).text).not.toContain('href="/studio/system"');
  });
});
