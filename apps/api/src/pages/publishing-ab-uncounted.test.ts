import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { sql } from 'kysely';
import { recordAbCounts } from '@inntak/postgres/publishing';
import { AbClientGate, AbRecorder } from '@inntak/ab-testing';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { get, logIn, studioApp, type Browser } from '../__tests__/studio-scene.js';

/**
 * Issue 39, point 4: how many impressions were not counted and why. Real requests of the front
 * page through the real gate (the default cap of 16 clients per address) and recorder into
 * PostgreSQL, read back through GET /publications/{id}/ab_results and the console's page.
 */
let ctx: TestContext;
let app: Express;
let recorder: AbRecorder;
let owner: Browser;
let authorization: string;

beforeAll(async () => {
  ctx = await setupTestContext();
  recorder = new AbRecorder((rows) => recordAbCounts(ctx.database.db, rows), ctx.logger, { flushMs: 3_600_000 });
  // Behind a proxy (TRUST_PROXY): X-Forwarded-For names the reader, as in publishing-security.test.ts.
  app = studioApp(ctx, {}, { trustProxy: 'loopback', publishing: { recorder, ownHost: 'inntak.test', abGate: new AbClientGate() } });
  authorization = await ctx.ownerAuthorization();
  owner = await logIn(app, 'owner-subject');
});
afterAll(async () => {
  await recorder.close();
  await ctx.close();
});

async function api(path: string, body: object) {
  const res = await request(app).post(path).set('Authorization', authorization).send(body);
  expect(res.status).toBeLessThan(300);
  return res.body as { id: string; edge_id: string };
}

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0';

describe('impressions not counted, and why (issue 39, point 4)', () => {
  it('bots, prefetches, clients over the per-address cap and reloads land by reason in ab_events, ab_results and the console', async () => {
    const pub = (await api('/intentions/create_publication', { title: 'Tellebladet', slug: 'tellebladet' })).id;
    const article = (await api('/intentions/create_node', { node_kind: 'content', title: 'Brua åpner', content: 'Tekst.' })).id;
    await api('/intentions/publish_article', { publication_id: pub, node_id: article });
    for (const title of ['Brua åpner i dag', 'Endelig: brua er klar!']) await api('/intentions/create_variant', { publication_id: pub, article_id: article, variant_type: 'headline', title });
    const page = (from: string, agent: string, headers: Record<string, string> = {}) => {
      let req = request(app).get('/pub/tellebladet').set('X-Forwarded-For', from).set('User-Agent', agent);
      for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
      return req.then((res) => expect(res.status).toBe(200));
    };

    // Crawlers: 3 by their User-Agent.
    for (const agent of ['Googlebot/2.1 (+http://www.google.com/bot.html)', 'facebookexternalhit/1.1', 'curl/8.5.0']) await page('192.0.2.1', agent);
    // Prefetches and prerenders of real browsers: 4.
    await page('192.0.2.2', BROWSER, { Purpose: 'prefetch' });
    await page('192.0.2.2', BROWSER, { 'Sec-Purpose': 'prefetch' });
    await page('192.0.2.2', BROWSER, { 'Sec-Purpose': 'prefetch;prerender' });
    await page('192.0.2.2', BROWSER, { 'X-Moz': 'prefetch' });
    // 30 readers behind one IPv4 address (a carrier's NAT): 16 count, 14 do not.
    for (let i = 0; i < 30; i++) await page('198.51.100.7', `${BROWSER} leser-${i}`);
    // Two reloads of a counted reader.
    await page('198.51.100.7', `${BROWSER} leser-0`);
    await page('198.51.100.7', `${BROWSER} leser-0`);
    // A HEAD shows nothing: neither counted nor uncounted.
    expect((await request(app).head('/pub/tellebladet').set('X-Forwarded-For', '192.0.2.3').set('User-Agent', BROWSER)).status).toBe(200);
    await recorder.flush();

    const { rows } = await sql<{ impressions: string; bot: string; prefetch: string; address_cap: string; repeat: string }>`
      select sum(impressions) as impressions, sum(uncounted_bot) as bot, sum(uncounted_prefetch) as prefetch,
        sum(uncounted_address_cap) as address_cap, sum(uncounted_repeat) as repeat
      from ab_events a join edges e on e.id = a.variant_edge_id where e.source_id = ${pub}`.execute(ctx.database.db);
    expect(rows[0]).toEqual({ impressions: '16', bot: '3', prefetch: '4', address_cap: '14', repeat: '2' });

    const results = await request(app).get(`/publications/${pub}/ab_results`).set('Authorization', authorization);
    expect(results.status).toBe(200);
    const variants = results.body.tests[0].variants as Array<{ impressions: number; uncounted: Record<string, number> }>;
    const total = (key: string) => variants.reduce((sum, v) => sum + v.uncounted[key]!, 0);
    expect(variants.reduce((sum, v) => sum + v.impressions, 0)).toBe(16);
    expect({ bot: total('bot'), prefetch: total('prefetch'), address_cap: total('address_cap'), repeat: total('repeat') }).toEqual({ bot: 3, prefetch: 4, address_cap: 14, repeat: 2 });
    // Each variant gets its own: the uncounted are attributed to the variant shown.
    expect(variants.every((v) => Object.keys(v.uncounted).sort().join() === 'address_cap,bot,prefetch,repeat')).toBe(true);

    const console = await get(app, owner, `/studio/publikasjoner/${pub}`);
    expect(console.status).toBe(200);
    expect(console.text).toContain('Ikke telt: 23 visninger (roboter 3, forhåndslasting 4, for mange fra samme adresse 14, samme leser igjen 2).');
    // 14 of the 30 readers' first views: the page explains the cap and names the setting.
    expect(console.text).toContain('47 % av lesernes visninger ble ikke telt fordi for mange lesere kom fra samme adresse.');
    expect(console.text).toMatch(/mobilnett eller på en arbeidsplass\. Driftsansvarlig kan øke grensen med innstillingen AB_CLIENTS_PER_ADDRESS\./);
  });

  it('the uncounted counts are in the OpenAPI document of ab_results', async () => {
    const openapi = await request(app).get('/openapi.json');
    expect(JSON.stringify(openapi.body.paths['/publications/{publication_id}/ab_results'].get.responses)).toMatch(/AB_CLIENTS_PER_ADDRESS/);
  });
});
