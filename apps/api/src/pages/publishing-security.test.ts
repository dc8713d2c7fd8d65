import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { sql } from 'kysely';
import { recordAbCounts } from '@inntak/postgres/publishing';
import { MAX_ARTICLE_CHARS } from '@inntak/publishing';
import { AbClientGate, AbRecorder, runAbEvaluation } from '@inntak/ab-testing';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { depsOnOwnPools } from '../__tests__/own-pools.js';
import { createApp } from '../app.js';
import { loadConfig } from '../config.js';
import { PageCache } from './page-cache.js';
import { ClientKeys, SearchLimiter, addressPrefix, networkPrefix } from './public-clients.js';
import { storesOn } from '@inntak/postgres/testing';

/**
 * Issue 22's attacks on the published pages, as they were made (scaled down): one client
 * deciding an A/B test (finding 4), a custom domain taking over the service's own routes and
 * anyone claiming a domain (5), and pages whose cost had no bound (10).
 */

let ctx: TestContext;
let app: Express;
let owner: string;
let sysadmin: { id: string; authorization: string };
let recorder: AbRecorder;
let cache: PageCache;

beforeAll(async () => {
  ctx = await setupTestContext();
  recorder = new AbRecorder((rows) => recordAbCounts(ctx.database.db, rows), ctx.logger, { flushMs: 3_600_000 });
  cache = new PageCache();
  app = ctx.app({ publishing: { recorder, ownHost: 'inntak.test', pageCache: cache } });
  owner = await ctx.ownerAuthorization();
  sysadmin = await ctx.addPerson('pubsec-admin', { admin: true });
});
afterAll(async () => {
  await recorder.close();
  await ctx.close();
});

function post(path: string, authorization: string, body: unknown) {
  return request(app).post(path).set('Authorization', authorization).send(body as object);
}

let slugs = 0;
async function publication(): Promise<{ id: string; slug: string }> {
  const slug = `sikker-${++slugs}`;
  const res = await post('/intentions/create_publication', owner, { title: `Sikker ${slugs}`, slug });
  expect(res.status).toBe(201);
  return { id: res.body.id, slug };
}

async function article(publicationId: string, title: string, content = `Innhold i ${title}`): Promise<string> {
  const made = await post('/intentions/create_node', owner, { node_kind: 'content', title, content });
  expect(made.status).toBe(201);
  expect((await post('/intentions/publish_article', owner, { publication_id: publicationId, node_id: made.body.id })).status).toBe(201);
  return made.body.id;
}

async function counts(variantId: string): Promise<{ impressions: number; clicks: number }> {
  const { rows } = await sql<{ impressions: string; clicks: string }>`
    select coalesce(sum(impressions), 0) as impressions, coalesce(sum(clicks), 0) as clicks from ab_events where variant_edge_id = ${variantId}`.execute(ctx.database.db);
  return { impressions: Number(rows[0]!.impressions), clicks: Number(rows[0]!.clicks) };
}

/** The /t link of an article on a front page, as a browser follows it (with its signed impression id, if any). */
function clickLink(page: string, articleId: string): string {
  const href = new RegExp(`href="([^"]*/t/${articleId}[^"]*)"`).exec(page)?.[1];
  expect(href).toBeDefined();
  return href!.replaceAll('&amp;', '&');
}

async function abTest(): Promise<{ pub: { id: string; slug: string }; id: string; a: string; b: string }> {
  const pub = await publication();
  const id = await article(pub.id, 'Omstridt sak');
  const variant = (title: string) => post('/intentions/create_variant', owner, { publication_id: pub.id, article_id: id, variant_type: 'headline', title });
  const a = (await variant('Overskrift A')).body.edge_id;
  const b = (await variant('Overskrift B')).body.edge_id;
  return { pub, id, a, b };
}

describe('one client cannot decide an A/B test (finding 4)', () => {
  it('240 front-page loads and 70 clicks from one client count at most one impression and one click, and evaluation decides nothing', async () => {
    const { pub, id, a, b } = await abTest();
    // One browser: it keeps the visitor cookie, so every load shows the variant its counted impression did.
    const browser = request.agent(app);
    const attacker = (path: string) => browser.get(path).set('User-Agent', 'angriper/1.0');
    let link = '';
    for (let i = 0; i < 240; i++) {
      const page = await attacker(`/pub/${pub.slug}`);
      expect(page.status).toBe(200);
      link = clickLink(page.text, id);
    }
    // The real signed link of the page, clicked 70 times, and as many unsigned clicks.
    for (let i = 0; i < 70; i++) expect((await attacker(link)).status).toBe(302);
    for (let i = 0; i < 70; i++) expect((await attacker(`/pub/${pub.slug}/t/${id}?v=${b}`)).status).toBe(302);
    await recorder.flush();
    const [ca, cb] = [await counts(a), await counts(b)];
    expect(ca.impressions + cb.impressions).toBe(1);
    expect(ca.clicks + cb.clicks).toBe(1);
    // A click is counted only for the variant this client's counted impression showed.
    expect(ca.clicks).toBeLessThanOrEqual(ca.impressions);
    expect(cb.clicks).toBeLessThanOrEqual(cb.impressions);
    const reports = await runAbEvaluation(storesOn(ctx.database.db).publishing);
    const report = reports.find((r) => r.article_id === id)!;
    expect(report.decision).not.toBe('winner');
    const statuses = await ctx.database.db.selectFrom('edges').select('metadata').where('id', 'in', [a, b]).execute();
    expect(statuses.map((r) => r.metadata.ab_status)).toEqual(['testing', 'testing']);
  });

  it('a new User-Agent per request does not make a new reader: one address counts as at most AB_CLIENTS_PER_ADDRESS clients', async () => {
    const capped = ctx.app({ publishing: { recorder, ownHost: 'inntak.test', abGate: new AbClientGate({ clientsPerAddress: 3 }) } });
    const { pub, id, a, b } = await abTest();
    for (let i = 0; i < 30; i++) {
      const page = await request(capped).get(`/pub/${pub.slug}`).set('User-Agent', `ua-${i}`);
      expect(page.status).toBe(200);
      await request(capped).get(clickLink(page.text, id)).set('User-Agent', `ua-${i}`);
    }
    await recorder.flush();
    const [ca, cb] = [await counts(a), await counts(b)];
    expect(ca.impressions + cb.impressions).toBe(3);
    expect(ca.clicks).toBe(ca.impressions);
    expect(cb.clicks).toBe(cb.impressions);
  });

  it('a click without a signed impression id, or with one for the other variant, counts nothing; clicks never exceed impressions', async () => {
    const { pub, id, a, b } = await abTest();
    for (const v of [a, b]) await request(app).get(`/pub/${pub.slug}/t/${id}?v=${v}`).set('User-Agent', 'aldri-vist');
    const page = await request(app).get(`/pub/${pub.slug}`).set('User-Agent', 'leser');
    const link = clickLink(page.text, id);
    const shown = link.includes(`v=${a}`) ? a : b;
    const notShown = shown === a ? b : a;
    for (let i = 0; i < 5; i++) await request(app).get(link.replace(shown, notShown)).set('User-Agent', 'leser');
    for (let i = 0; i < 5; i++) await request(app).get(`/pub/${pub.slug}/t/${id}?v=${shown}`).set('User-Agent', 'leser');
    for (let i = 0; i < 5; i++) await request(app).get(link).set('User-Agent', 'leser');
    await recorder.flush();
    expect(await counts(shown)).toEqual({ impressions: 1, clicks: 1 });
    expect(await counts(notShown)).toEqual({ impressions: 0, clicks: 0 });
  });

  it('a client counts again in the next window, once; a click just after the turn still finds its impression', async () => {
    let now = 0;
    const gate = new AbClientGate({ windowMs: 1000, clock: () => now });
    const who = { address: 'x', network: 'x', client: 'c' };
    const show = (variant: string) => gate.impressions(who, 'p', new Map([['a', variant]]));
    const first = await show('v1');
    expect(first.counted).toEqual(['v1']);
    const token = first.tokens.get('a');
    // Not counted again, and said why (issue 39 point 4: the editor sees the uncounted by reason).
    expect(await show('v1')).toEqual({ counted: [], tokens: new Map([['a', token]]), uncounted: [{ variant: 'v1', reason: 'repeat' }] });
    expect(await show('v2')).toEqual({ counted: [], tokens: new Map(), uncounted: [{ variant: 'v2', reason: 'repeat' }] });
    expect(await gate.click(token, 'p', 'a', 'v2')).toBe(false);
    now = 1500;
    expect(await gate.click(token, 'p', 'a', 'v1')).toBe(true);
    expect(await gate.click(token, 'p', 'a', 'v1')).toBe(false);
    const next = await show('v2');
    expect(next.counted).toEqual(['v2']);
    expect(await gate.click(next.tokens.get('a'), 'p', 'a', 'v2')).toBe(true);
    now = 5000;
    expect(await gate.click(next.tokens.get('a'), 'p', 'a', 'v2')).toBe(false);
  });
});

describe('second attack (issue 22): one IPv6 network cannot decide an A/B test', () => {
  it('300 front-page loads and clicks from 300 /64s of one /48 (one User-Agent) count as at most AB_CLIENTS_PER_ADDRESS clients, and evaluation decides nothing', async () => {
    // The attack on a running service: behind a proxy (TRUST_PROXY), one client holding a /48 (a
    // free tunnel gives one) sent each load from a /64 of its own and clicked B whenever shown B:
    // B 146/143 against A 159/0 in 1.5 s, and `inntak ab evaluate` retired A.
    const proxied = ctx.app({ trustProxy: 'loopback', publishing: { recorder, ownHost: 'inntak.test', abGate: new AbClientGate({ clientsPerAddress: 4 }) } });
    const { pub, id, a, b } = await abTest();
    for (let i = 0; i < 300; i++) {
      const from = `2001:db8:77:${i.toString(16)}::1`;
      const page = await request(proxied).get(`/pub/${pub.slug}`).set('X-Forwarded-For', from).set('User-Agent', 'angriper/1.0');
      expect(page.status).toBe(200);
      if (page.text.includes(`?v=${b}`)) await request(proxied).get(clickLink(page.text, id)).set('X-Forwarded-For', from).set('User-Agent', 'angriper/1.0');
    }
    // Another network still counts: the cap is per /48, not for all of IPv6.
    await request(proxied).get(`/pub/${pub.slug}`).set('X-Forwarded-For', '2001:db8:78::1').set('User-Agent', 'leser');
    await recorder.flush();
    const [ca, cb] = [await counts(a), await counts(b)];
    expect(ca.impressions + cb.impressions).toBe(5);
    expect(cb.clicks).toBeLessThanOrEqual(cb.impressions);
    const report = (await runAbEvaluation(storesOn(ctx.database.db).publishing)).find((r) => r.article_id === id)!;
    expect(report.decision).not.toBe('winner');
  });
});

describe('client keys', () => {
  it('an IPv6 address counts by its /64, an IPv4-mapped one as IPv4; keys are hashes, not addresses', async () => {
    expect(addressPrefix('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressPrefix('2001:0db8:0001:0002:ffff:0:0:9')).toBe('2001:db8:1:2::/64');
    expect(addressPrefix('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressPrefix('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressPrefix('203.0.113.7')).toBe('203.0.113.7');
    const keys = new ClientKeys();
    const one = await keys.of('2001:db8:1:2::1', 'Firefox');
    const same = await keys.of('2001:db8:1:2:ffff::7', 'Firefox');
    expect(same).toEqual(one);
    expect((await keys.of('2001:db8:1:2::1', 'Chrome')).address).toBe(one.address);
    expect((await keys.of('2001:db8:1:2::1', 'Chrome')).client).not.toBe(one.client);
    expect(JSON.stringify(one)).not.toContain('2001');
  });

  it('A/B counting groups an IPv6 address by its /48 (the network), IPv4 by the address', async () => {
    expect(networkPrefix('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1::/48');
    expect(networkPrefix('2001:db8:1:ffff::1')).toBe('2001:db8:1::/48');
    expect(networkPrefix('2001:db8::1')).toBe('2001:db8:0::/48');
    expect(networkPrefix('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(networkPrefix('203.0.113.7')).toBe('203.0.113.7');
    const keys = new ClientKeys();
    expect((await keys.of('2001:db8:1:2::1', 'Firefox')).network).toBe((await keys.of('2001:db8:1:3::1', 'Firefox')).network);
    expect((await keys.of('2001:db8:1:2::1', 'Firefox')).address).not.toBe((await keys.of('2001:db8:1:3::1', 'Firefox')).address);
    expect((await keys.of('2001:db8:2:2::1', 'Firefox')).network).not.toBe((await keys.of('2001:db8:1:2::1', 'Firefox')).network);
  });
});

describe('custom domains serve page paths only, and only a system admin sets them (finding 5)', () => {
  it('a publication with the API’s internal host name does not take over intake, /me or /health/ready', async () => {
    const made = await post('/intentions/create_publication', sysadmin.authorization, { title: 'Kapret', slug: 'kapret', domains: ['hooks.example.com', 'inntak-api.internal'] });
    expect(made.status).toBe(201);
    await post('/intentions/grant_access', sysadmin.authorization, { subject_id: ctx.ownerId, object_id: made.body.id, access: 'admin' });
    const id = await article(made.body.id, 'Domenesak');
    const webhook = await ctx.addWebhook();
    const host = 'inntak-api.internal';
    const intake = await request(app).post(`/api/webhook/${webhook.token}`).set('Host', host).send({ title: 'fra avsender' });
    expect(intake.status).toBe(200);
    expect(intake.headers['content-type']).toMatch(/^application\/json/);
    const me = await request(app).get('/me').set('Host', host);
    expect(me.status).toBe(401);
    expect(me.headers['content-type']).toMatch(/^application\/json/);
    expect((await request(app).get('/health/ready').set('Host', host)).status).toBe(200);
    expect((await request(app).get('/openapi.json').set('Host', host)).status).toBe(200);
    expect((await request(app).get('/metrics').set('Host', host)).status).toBe(401);
    // Its own pages still answer there, /t included (a page path of publications).
    expect((await request(app).get('/').set('Host', host)).text).toContain(`href="/artikkel/${id}"`);
    expect((await request(app).get(`/artikkel/${id}`).set('Host', host)).text).toContain('Domenesak');
    const click = await request(app).get(`/t/${id}?v=00000000-0000-4000-8000-000000000000`).set('Host', host);
    expect([click.status, click.headers.location]).toEqual([302, `/artikkel/${id}`]);
    // Other publications' pages are not served under its domain.
    const other = await publication();
    const foreign = await request(app).get(`/pub/${other.slug}`).set('Host', host);
    expect(foreign.status).toBe(404);
    expect(foreign.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('only a system admin may give a publication domains: anyone else gets 403 and nothing is written', async () => {
    const stranger = await ctx.addPerson('pubsec-stranger');
    const before = await ctx.database.db.selectFrom('nodes').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
    for (const who of [owner, stranger.authorization]) {
      const res = await post('/intentions/create_publication', who, { title: 'Kaprer', slug: 'kaprer', domains: ['hooks.example.org'] });
      expect(res.status).toBe(403);
      expect(res.body.error).toBe('Ingen tilgang: bare en systemadministrator kan legge til domener');
    }
    const after = await ctx.database.db.selectFrom('nodes').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
    const { rows } = await sql`select 1 from publication_domains where domain = 'hooks.example.org'`.execute(ctx.database.db);
    expect(rows).toHaveLength(0);
    // Without domains anyone known may still create one; with them, a system admin may.
    expect((await post('/intentions/create_publication', stranger.authorization, { title: 'Egen', slug: 'egen-uten-domene' })).status).toBe(201);
    expect((await post('/intentions/create_publication', sysadmin.authorization, { title: 'Admin', slug: 'admin-med', domains: ['hooks.example.org'] })).status).toBe(201);
  });
});

describe('public pages cost a bounded amount (finding 10)', () => {
  it('a 600 KB article renders at most MAX_ARTICLE_CHARS of content, ends with … and a note, and is rendered once', async () => {
    const pub = await publication();
    const long = 'Ord og setninger. '.repeat(34_000); // ≈ 612,000 characters
    const id = await article(pub.id, 'Lang sak', long);
    const first = await request(app).get(`/pub/${pub.slug}/artikkel/${id}`);
    expect(first.status).toBe(200);
    expect(first.text).toContain('…');
    expect(first.text).toContain('Artikkelen er forkortet');
    expect(first.text.length).toBeLessThan(MAX_ARTICLE_CHARS + 5_000);
    const held = cache.size().bytes;
    expect(held).toBeGreaterThan(MAX_ARTICLE_CHARS);
    // Served from the cache: the same bytes, no second render (the cache grew by nothing).
    const again = await request(app).get(`/pub/${pub.slug}/artikkel/${id}`);
    expect(again.text).toBe(first.text);
    expect(cache.size().bytes).toBe(held);
    // A short article is whole, without the note.
    const short = await article(pub.id, 'Kort sak', 'Bare litt.');
    const page = await request(app).get(`/pub/${pub.slug}/artikkel/${short}`);
    expect(page.text).toContain('Bare litt.');
    expect(page.text).not.toContain('Artikkelen er forkortet');
  });

  it('the page cache is bounded in bytes and drops its oldest entries first', async () => {
    const small = new PageCache(100, 1000);
    for (let i = 0; i < 10; i++) await small.get('p', `k${i}`, () => Promise.resolve('x'.repeat(300)), (v) => v.length);
    expect(small.size()).toEqual({ entries: 3, bytes: 900 });
    let loads = 0;
    await small.get('p', 'k9', () => Promise.resolve(String(++loads)));
    expect(loads).toBe(0);
    await small.get('p', 'k0', () => Promise.resolve(String(++loads)));
    expect(loads).toBe(1);
  });

  it('one address searching beyond PUB_SEARCHES_PER_MINUTE gets 429 with Retry-After, as HTML', async () => {
    // Half a minute into a minute that does not turn during the test.
    const limited = ctx.app({ publishing: { recorder, ownHost: 'inntak.test', searches: new SearchLimiter({ perMinute: 5, clock: () => 90_000 }) } });
    const pub = await publication();
    await article(pub.id, 'Søkbar sak');
    const answers: request.Response[] = [];
    for (let i = 0; i < 8; i++) answers.push(await request(limited).get(`/pub/${pub.slug}/sok`).query({ q: `søkbar ${i}` }));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    const refused = answers[5]!;
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(refused.text).toContain('For mange søk');
    // The search form without words costs no query and is never refused.
    expect((await request(limited).get(`/pub/${pub.slug}/sok`)).status).toBe(200);
  });

  it('searches run one at a time per address and PUB_SEARCH_CONCURRENCY at once in all; intake keeps its own pool meanwhile', async () => {
    const { database, intakeDatabase, deps } = depsOnOwnPools(ctx, 3, { trustProxy: 'loopback', publicPages: { searchConcurrency: 2 } });
    const wired = createApp({ ...deps, publishing: { ...deps.publishing, pageCache: new PageCache() } });
    const pub = await publication();
    await article(pub.id, 'Treg sak');
    // The slug lookup cached, as in a running API: the searches themselves are what waits.
    expect((await request(wired).get(`/pub/${pub.slug}/sok`)).status).toBe(200);
    const webhook = await ctx.addWebhook();
    // Every connection of the main pool held: each search that gets to run waits for one (a
    // lock on node_search would hold intake too: its inserts index the node).
    const held = await Promise.all([database.pool.connect(), database.pool.connect(), database.pool.connect()]);
    const search = (address: string) =>
      request(wired).get(`/pub/${pub.slug}/sok`).query({ q: 'treg' }).set('X-Forwarded-For', address).then((res) => res);
    const settled: Array<{ address: string; status: number; retryAfter?: string }> = [];
    const track = (address: string) =>
      search(address).then((res) => {
        settled.push({ address, status: res.status, retryAfter: res.headers['retry-after'] });
        return res;
      });
    const answers = [track('203.0.113.1'), track('203.0.113.1'), track('203.0.113.2'), track('203.0.113.3'), track('203.0.113.4')];
    try {
      // Seconds, not a measure of speed: refusals answer at once, the two admitted wait for `finally`.
      const deadline = Date.now() + 15_000;
      while (settled.length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      // Two run (one per address, two in all); the second of one address and the rest of the
      // others were refused at once, while the two still wait for the database.
      expect(settled.map((s) => s.status)).toEqual([429, 429, 429]);
      expect(settled.every((s) => s.retryAfter === '1')).toBe(true);
      // Page load has the main pool: intake answers from its own.
      // From the main pool it would wait until `finally` releases it, past this timeout.
      const intake = await request(wired).post(`/api/webhook/${webhook.token}`).send({ title: 'under sidelast' }).timeout(15_000);
      expect(intake.status).toBe(200);
    } finally {
      held.forEach((client) => client.release());
    }
    const all = await Promise.all(answers);
    expect(all.map((r) => r.status).sort()).toEqual([200, 200, 429, 429, 429]);
    await database.close();
    await intakeDatabase.close();
  });

  it('the limits are settings with small defaults; TRUST_PROXY refuses "true"', () => {
    expect(loadConfig({})).toMatchObject({
      trustProxy: undefined,
      publicPages: { searchConcurrency: 4, searchesPerMinute: 30, abWindowHours: 24, abClientsPerAddress: 16 },
    });
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback,10.0.0.0/8');
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ PUB_SEARCH_CONCURRENCY: '0' })).toThrow(/PUB_SEARCH_CONCURRENCY/);
    expect(() => loadConfig({ AB_CLIENTS_PER_ADDRESS: 'many' })).toThrow(/AB_CLIENTS_PER_ADDRESS/);
  });
});
