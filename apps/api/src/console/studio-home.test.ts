import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { enqueueJob } from '@inntak/postgres/jobs';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { get, logIn, postForm, studioApp, type Browser } from '../__tests__/studio-scene.js';
import { createPerson } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

// The console made for people (issue 39, point 5): the home page's attention list, who is
// logged in, times with their zone, the rule and login forms' errors, favicon and robots.txt.

let ctx: TestContext;
let app: Express;
let owner: Browser;
let member: Browser;
let stranger: Browser;
let sysadmin: Browser;
let webhook: { id: string; token: string };
let pub: string;
let article: string;
let failedJob: number;

async function api(path: string, body: object) {
  const res = await request(app).post(path).set('Authorization', await ctx.ownerAuthorization()).send(body);
  expect(res.status).toBeLessThan(300);
  return res.body;
}

beforeAll(async () => {
  ctx = await setupTestContext();
  app = studioApp(ctx);
  const memberPerson = await createPerson(storesOn(ctx.database.db).graph, { subject: 'medlem', name: 'Mari Medlem' });
  await createPerson(storesOn(ctx.database.db).graph, { subject: 'fremmed' });
  await createPerson(storesOn(ctx.database.db).graph, { subject: 'drift', name: 'Dag Drift', admin: true });
  // A webhook refusing two unsigned requests.
  webhook = await ctx.addWebhook(null);
  await ctx.database.pool.query(`insert into webhook_secrets (webhook_id, scheme, secret) values ($1, 'github', 'hemmelig')`, [webhook.id]);
  for (let i = 0; i < 2; i++) expect((await request(app).post(`/api/webhook/${webhook.token}`).send({ title: 'usignert' })).status).toBe(401);
  // A test with enough impressions on both variants, not yet decided (equal click-through).
  pub = (await api('/intentions/create_publication', { title: 'Fjordposten', slug: 'fjordposten' })).id;
  await api('/intentions/grant_access', { subject_id: memberPerson.id, object_id: pub, access: 'member' });
  article = (await api('/intentions/create_node', { node_kind: 'content', title: 'Brua åpner', content: 'Tekst.' })).id;
  await api('/intentions/publish_article', { publication_id: pub, node_id: article });
  const variants: string[] = [];
  for (const title of ['Brua åpner i dag', 'Endelig: brua er klar!']) {
    variants.push((await api('/intentions/create_variant', { publication_id: pub, article_id: article, variant_type: 'headline', title })).edge_id);
  }
  await ctx.database.pool.query(`insert into ab_events (variant_edge_id, hour_of_week, impressions, clicks, recorded_at) values ($1, 1, 150, 6, now()), ($2, 1, 150, 6, now())`, variants);
  // A failed job.
  failedJob = Number(await enqueueJob(ctx.database.db, 'tts_generate', { node_id: article }));
  await ctx.database.pool.query(`update job_queue set status = 'failed', last_error = 'talemotoren svarte ikke', finished_at = now() where id = $1`, [failedJob]);
  owner = await logIn(app, 'owner-subject');
  member = await logIn(app, 'medlem');
  stranger = await logIn(app, 'fremmed');
  sysadmin = await logIn(app, 'drift');
});
afterAll(() => ctx.close());

describe('the home page shows what needs attention', () => {
  it("a webhook's administrator sees it with its refused requests of the last day and a link to them", async () => {
    const page = (await get(app, owner, '/studio')).text;
    expect(page).toContain('Trenger oppmerksomhet');
    expect(page).toContain(`<a href="/studio/webhooks/${webhook.id}?status=failed">`);
    expect(page).toContain('2 avviste forespørsler');
    // The owner is no system administrator: no jobs part.
    expect(page).not.toContain('Feilede jobber');
  });

  it("a publication's member sees its test that has data enough to decide on, with a link to the article", async () => {
    const page = (await get(app, member, '/studio')).text;
    expect(page).toContain('Tester som venter på en avgjørelse');
    expect(page).toContain(`/studio/publikasjoner/${pub}#artikkel-${article}`);
    expect(page).toContain('Nok data til å avgjøre (300 visninger i runden).');
    // A member administers no webhook.
    expect(page).not.toContain('Webhooks med feil');
  });

  it('a system administrator sees the failed jobs with a link to them on the system page', async () => {
    const page = (await get(app, sysadmin, '/studio')).text;
    expect(page).toContain('Feilede jobber');
    expect(page).toContain('<a href="/studio/system?status=failed">1 jobb har feilet</a>');
    expect(page).toContain(`Jobb ${failedJob} (tts_generate)`);
    expect(page).toContain('talemotoren svarte ikke');
  });

  it('someone with nothing to see is told all is well', async () => {
    const page = (await get(app, stranger, '/studio')).text;
    expect(page).toContain('Alt ser bra ut.');
    expect(page).not.toContain('Trenger oppmerksomhet');
  });
});

describe('who is logged in, and when things happened', () => {
  it('the header names the person beside "Logg ut", and says systemadministrator when so', async () => {
    expect((await get(app, member, '/studio')).text).toContain('Innlogget som <strong>Mari Medlem</strong></span>');
    expect((await get(app, sysadmin, '/studio')).text).toContain('Innlogget som <strong>Dag Drift</strong> <span class="role">(systemadministrator)</span>');
    // A person without a name: the subject they logged in with.
    expect((await get(app, stranger, '/studio')).text).toContain('Innlogget som <strong>fremmed</strong>');
  });

  it('times are written in UTC, saying so, to the second in the title', async () => {
    const page = (await get(app, sysadmin, '/studio')).text;
    const time = /<time datetime="([^"]+)" title="([^"]+)">([^<]+)<\/time>/.exec(page);
    expect(time).not.toBeNull();
    const [, iso, title, text] = time!;
    const d = new Date(iso!);
    const day = `${String(d.getUTCDate()).padStart(2, '0')}.${String(d.getUTCMonth() + 1).padStart(2, '0')}.${d.getUTCFullYear()}`;
    expect(text).toBe(`${day} ${iso!.slice(11, 16)} UTC`);
    expect(title).toBe(`${day} ${iso!.slice(11, 19)} UTC`);
  });
});

describe('forms show their errors on the form', () => {
  it('a priority rule with a number out of bounds or not a number: 400, each field named, the values kept, the rule unchanged', async () => {
    const before = await ctx.database.pool.query('select * from job_priority_rules where job_type = $1', ['tts_generate']);
    const res = await postForm(app, sysadmin, '/studio/system/regler', { job_type: 'tts_generate', base_priority: 'mye', cpu_weight: '1', max_concurrent: '99999', livekit_priority_adj: '0', timeout: '60' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('«Grunnprioritet» må være et tall.');
    expect(res.text).toMatch(/«Maks samtidige» kan være høyst \d+\./);
    expect(res.text).toContain('value="mye"');
    expect(res.text).toContain('href="#base_priority-tts_generate"');
    expect((await ctx.database.pool.query('select * from job_priority_rules where job_type = $1', ['tts_generate'])).rows).toEqual(before.rows);
  });

  it('the rule fields are number fields with the bounds as min and max, and a good rule is saved', async () => {
    const page = (await get(app, sysadmin, '/studio/system')).text;
    expect(page).toMatch(/id="timeout-tts_generate" name="timeout" required type="number" value="\d+" min="1" max="86400"/);
    const res = await postForm(app, sysadmin, '/studio/system/regler', { job_type: 'tts_generate', base_priority: '5', cpu_weight: '1', max_concurrent: '2', livekit_priority_adj: '0', timeout: '120' });
    expect(res.status).toBe(303);
    const { rows } = await ctx.database.pool.query('select base_priority, timeout_seconds from job_priority_rules where job_type = $1', ['tts_generate']);
    expect(rows[0]).toMatchObject({ base_priority: 5, timeout_seconds: 120 });
  });

  it('the development login names an empty or unknown user name on the form, keeping what was typed', async () => {
    const form = await request(app).get('/studio/login');
    const pre = /inntak_studio_pre=([^;]+)/.exec(String(form.headers['set-cookie']))![1]!;
    const post = (brukernavn: string) => request(app).post('/studio/login/dev').set('Cookie', `inntak_studio_pre=${pre}`).type('form').send({ csrf: pre, brukernavn });
    const empty = await post('  ');
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('<p class="field-error" id="brukernavn-feil">«Brukernavn» må fylles ut.</p>');
    const unknown = await post('ingen-slik');
    expect(unknown.status).toBe(401);
    expect(unknown.text).toContain('Ukjent brukeridentitet: ingen person her har brukernavnet «ingen-slik».');
    expect(unknown.text).toContain('value="ingen-slik"');
  });
});

describe('favicon.ico and robots.txt', () => {
  it('the icon is an ICO, cacheable', async () => {
    const res = await request(app).get('/favicon.ico');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/vnd.microsoft.icon');
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    const body = res.body as Buffer;
    expect([...body.subarray(0, 4)]).toEqual([0, 0, 1, 0]);
  });

  it('robots.txt keeps crawlers out of the console and the API and lets them read the published pages', async () => {
    const res = await request(app).get('/robots.txt');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toContain('Disallow: /studio\n');
    expect(res.text).toContain('Disallow: /api/\n');
    expect(res.text).toContain('Allow: /pub/\n');
  });
});
