import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { get, logIn, postForm, studioApp, type Browser } from '../__tests__/studio-scene.js';

/** The editor's A/B test in the console (issue 39, point 4): control, confirmation, pause. */
let ctx: TestContext;
let app: Express;
let owner: Browser;
let member: Browser;
let pub: string;
let article: string;

async function api(path: string, body: object, status = 300) {
  const res = await request(app).post(path).set('Authorization', await ctx.ownerAuthorization()).send(body);
  expect(res.status).toBeLessThan(status);
  return res;
}

async function statuses(): Promise<Array<{ title: string; ab_status: string | null; control: string | null; paused: string | null }>> {
  const { rows } = await ctx.database.pool.query(
    `select metadata ->> 'title' as title, metadata ->> 'ab_status' as ab_status, metadata ->> 'control' as control, metadata ->> 'paused' as paused
     from edges where edge_type = 'front_page_variant' and target_id = $1 order by metadata ->> 'control' is null, id`,
    [article],
  );
  return rows;
}

beforeAll(async () => {
  ctx = await setupTestContext();
  app = studioApp(ctx);
  const memberPerson = await ctx.addPerson('medlem');
  pub = (await api('/intentions/create_publication', { title: 'Fjordposten', slug: 'fjordposten' })).body.id;
  await api('/intentions/grant_access', { subject_id: memberPerson.id, object_id: pub, access: 'member' });
  article = (await api('/intentions/create_node', { node_kind: 'content', title: 'Brua åpner', content: 'Tekst.' })).body.id;
  await api('/intentions/publish_article', { publication_id: pub, node_id: article });
  owner = await logIn(app, 'owner-subject');
  member = await logIn(app, 'medlem');
});
afterAll(() => ctx.close());

describe('an editor’s A/B test in the console', () => {
  it('a new headline is tested against the article’s own title, which becomes the control without retyping it', async () => {
    const res = await postForm(app, owner, `/studio/publikasjoner/${pub}/varianter`, { article_id: article, variant_type: 'headline', title: 'Endelig: brua er klar!', teaser: '' });
    expect(res.status).toBe(303);
    expect(await statuses()).toEqual([
      { title: 'Brua åpner', ab_status: 'testing', control: 'true', paused: null },
      { title: 'Endelig: brua er klar!', ab_status: 'testing', control: null, paused: null },
    ]);
    const page = await get(app, owner, `/studio/publikasjoner/${pub}`);
    expect(page.text).toContain('Brua åpner <span class="hint">(originalen)</span>');
    expect(page.text).toContain('sammenligningsgrunnlag');
    expect(page.text).toContain('Lite data:');
  });

  it('lift is measured against the control and said in words, never below −100 %', async () => {
    const [control, challenger] = (await ctx.database.pool.query(`select id from edges where edge_type = 'front_page_variant' and target_id = $1 order by metadata ->> 'control' is null, id`, [article])).rows.map((r: { id: string }) => r.id);
    await ctx.database.pool.query(
      `insert into ab_events (variant_edge_id, hour_of_week, impressions, clicks, recorded_at) values ($1, 1, 8, 1, now()), ($2, 1, 7, 3, now())`,
      [control, challenger],
    );
    const results = await request(app).get(`/publications/${pub}/ab_results`).set('Authorization', await ctx.ownerAuthorization());
    const [test] = results.body.tests;
    expect(test.control).toBe(control);
    for (const c of test.comparisons) expect(c.lift.low).toBeGreaterThanOrEqual(-1);
    const page = await get(app, owner, `/studio/publikasjoner/${pub}`);
    expect(page.text).toMatch(/242,9 % flere klikk enn originalen, men usikkert: alt fra 100 % færre til [\d\s,]+ % flere er mulig\./u);
  });

  it('“Velg som vinner” before the test has decided leads to a confirmation that says what is known; confirmed, the variant wins', async () => {
    const challenger = (await statuses()).length && (await ctx.database.pool.query(`select id from edges where edge_type = 'front_page_variant' and target_id = $1 and metadata ->> 'control' is null`, [article])).rows[0].id;
    const first = await postForm(app, owner, `/studio/publikasjoner/${pub}/vinner`, { edge_id: challenger });
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe(`/studio/publikasjoner/${pub}/vinner?edge_id=${challenger}`);
    expect((await statuses()).map((s) => s.ab_status)).toEqual(['testing', 'testing']);
    const confirm = await get(app, owner, first.headers.location!);
    expect(confirm.status).toBe(200);
    expect(confirm.text).toContain('Testen har ikke avgjort ennå.');
    expect(confirm.text).toContain('Lite data:');
    expect(confirm.text).toContain('8 visninger, 1 klikk');
    expect(confirm.text).toContain('name="bekreftet" value="ja"');
    // A member may read the confirmation page; the use case still refuses them.
    expect((await postForm(app, member, `/studio/publikasjoner/${pub}/vinner`, { edge_id: challenger, bekreftet: 'ja' })).status).toBe(403);
    const done = await postForm(app, owner, `/studio/publikasjoner/${pub}/vinner`, { edge_id: challenger, bekreftet: 'ja' });
    expect(done.headers.location).toBe(`/studio/publikasjoner/${pub}?ok=vinner`);
    expect((await statuses()).map((s) => s.ab_status)).toEqual(['retired', 'winner']);
    // Decided: choosing the original back needs no confirmation.
    const control = (await ctx.database.pool.query(`select id from edges where edge_type = 'front_page_variant' and target_id = $1 and metadata ->> 'control' = 'true'`, [article])).rows[0].id;
    const back = await postForm(app, owner, `/studio/publikasjoner/${pub}/vinner`, { edge_id: control });
    expect(back.headers.location).toBe(`/studio/publikasjoner/${pub}?ok=vinner`);
    expect((await statuses()).map((s) => s.ab_status)).toEqual(['winner', 'retired']);
  });

  it('a paused test shows the article’s own title (nothing to count) and resumes in the same round; only owners and admins may', async () => {
    await postForm(app, owner, `/studio/publikasjoner/${pub}/varianter`, { article_id: article, variant_type: 'headline', title: 'Ny utfordrer', teaser: '' });
    const ref = { publication_id: pub, article_id: article, variant_type: 'headline' };
    const refused = await request(app).post('/intentions/pause_ab_test').set('Authorization', (await ctx.addPerson('utenfor')).authorization).send(ref);
    expect([403, 404]).toContain(refused.status);
    const paused = await postForm(app, owner, `/studio/publikasjoner/${pub}/pause`, { article_id: article, variant_type: 'headline' });
    expect(paused.headers.location).toBe(`/studio/publikasjoner/${pub}?ok=pause`);
    expect((await statuses()).filter((s) => s.ab_status === 'testing').every((s) => s.paused === 'true')).toBe(true);
    const front = await request(app).get('/pub/fjordposten');
    expect(front.text).toContain('Brua åpner');
    expect(front.text).not.toContain('Ny utfordrer');
    expect(front.text).not.toContain('?v=');
    const page = await get(app, owner, `/studio/publikasjoner/${pub}`);
    expect(page.text).toContain('Testen står på pause');
    expect(page.text).toContain('Fortsett testen');
    const resumed = await api('/intentions/resume_ab_test', ref);
    expect(resumed.body.paused).toBe(false);
    expect((await statuses()).every((s) => s.paused === null)).toBe(true);
    // Nothing running any more: 409.
    await postForm(app, owner, `/studio/publikasjoner/${pub}/vinner`, { edge_id: (await ctx.database.pool.query(`select id from edges where edge_type = 'front_page_variant' and metadata ->> 'title' = 'Ny utfordrer'`)).rows[0].id, bekreftet: 'ja' });
    expect((await request(app).post('/intentions/pause_ab_test').set('Authorization', await ctx.ownerAuthorization()).send(ref)).status).toBe(409);
  });
});
