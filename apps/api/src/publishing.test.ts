import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { sql } from 'kysely';
import { hourOfWeek } from '@inntak/ab-testing';
import { recordAbCounts } from '@inntak/postgres/publishing';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';
import { AbRecorder } from './ab-recorder.js';
import { AbClientGate } from './public-clients.js';

let ctx: TestContext;
let app: Express;
let owner: string;
/** A system administrator: only they may give a publication custom domains. */
let sysadmin: { id: string; authorization: string };
let recorder: AbRecorder;

beforeAll(async () => {
  ctx = await setupTestContext();
  // Flushed by hand in these tests; the timer is tested in ab-recorder.test.ts.
  recorder = new AbRecorder((rows) => recordAbCounts(ctx.database.db, rows), ctx.logger, { flushMs: 3_600_000 });
  // Many readers from one test address: the per-address cap is tested in publishing-security.test.ts.
  app = ctx.app({ publishing: { recorder, ownHost: 'inntak.test', abGate: new AbClientGate({ clientsPerAddress: 1000 }) } });
  owner = await ctx.ownerAuthorization();
  sysadmin = await ctx.addPerson('pub-sysadmin', { admin: true });
});
afterAll(async () => {
  await recorder.close();
  await ctx.close();
});

function post(path: string, authorization: string, body: unknown) {
  return request(app).post(path).set('Authorization', authorization).send(body as object);
}

let slugs = 0;
async function publication(extra: Record<string, unknown> = {}): Promise<{ id: string; slug: string }> {
  const slug = `blad-${++slugs}`;
  // Domains need a system administrator, who then makes the owner an admin of the publication.
  const creator = extra.domains ? sysadmin.authorization : owner;
  const res = await post('/intentions/create_publication', creator, { title: `Bladet ${slugs}`, slug, about: 'Om bladet.\n\nAndre avsnitt.', ...extra });
  expect(res.status).toBe(201);
  if (extra.domains) expect((await post('/intentions/grant_access', creator, { subject_id: ctx.ownerId, object_id: res.body.id, access: 'admin' })).status).toBe(200);
  return { id: res.body.id, slug };
}

async function node(title: string, content = `Innhold i ${title}`, visibility = 'hidden'): Promise<string> {
  const res = await post('/intentions/create_node', owner, { node_kind: 'content', title, content, visibility });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function publish(publicationId: string, nodeId: string): Promise<string> {
  const res = await post('/intentions/publish_article', owner, { publication_id: publicationId, node_id: nodeId });
  expect(res.status).toBe(201);
  return res.body.edge_id;
}

async function article(publicationId: string, title: string, content?: string): Promise<string> {
  const id = await node(title, content);
  await publish(publicationId, id);
  return id;
}

async function abEvents(variantId: string): Promise<{ impressions: number; clicks: number }> {
  const { rows } = await sql<{ impressions: string; clicks: string }>`
    select coalesce(sum(impressions), 0) as impressions, coalesce(sum(clicks), 0) as clicks from ab_events where variant_edge_id = ${variantId}`.execute(ctx.database.db);
  return { impressions: Number(rows[0]!.impressions), clicks: Number(rows[0]!.clicks) };
}

async function edgeMetadata(id: string): Promise<Record<string, unknown>> {
  const row = await ctx.database.db.selectFrom('edges').select('metadata').where('id', '=', id).executeTakeFirstOrThrow();
  return row.metadata;
}

describe('POST /intentions/create_publication', () => {
  it('creates a collection with metadata.publication that the caller owns', async () => {
    const { id, slug } = await publication({ domains: ['Nyheter.Example.no'] });
    // Created by the system administrator (domains need one).
    const row = await ctx.database.db.selectFrom('nodes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.node_kind).toBe('collection');
    expect(row.metadata).toEqual({ publication: { slug, title: `Bladet ${slugs}`, about: 'Om bladet.\n\nAndre avsnitt.', domains: ['nyheter.example.no'] } });
    const ownerEdge = await ctx.database.db.selectFrom('edges').select('source_id').where('target_id', '=', id).where('edge_type', '=', 'owner').executeTakeFirst();
    expect(ownerEdge?.source_id).toBe(sysadmin.id);
  });

  it('a slug or a domain already in use is 409, and nothing is written', async () => {
    const first = await publication({ domains: ['opptatt.example.no'] });
    const before = await ctx.database.db.selectFrom('nodes').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
    const sameSlug = await post('/intentions/create_publication', owner, { title: 'Kopi', slug: first.slug });
    expect(sameSlug.status).toBe(409);
    expect(sameSlug.body.error).toBe('Konflikt: slug er allerede i bruk');
    const sameDomain = await post('/intentions/create_publication', sysadmin.authorization, { title: 'Kopi', slug: 'ny-slug-x', domains: ['OPPTATT.example.no'] });
    expect(sameDomain.status).toBe(409);
    expect(sameDomain.body.error).toBe('Konflikt: domenet er allerede i bruk');
    const after = await ctx.database.db.selectFrom('nodes').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('a bad slug or domain is 400 naming the field', async () => {
    const badSlug = await post('/intentions/create_publication', owner, { title: 'X', slug: 'Store Bokstaver' });
    expect(badSlug.status).toBe(400);
    expect(badSlug.body.error).toMatch(/^Ugyldig forespørsel: slug: /);
    const badDomain = await post('/intentions/create_publication', sysadmin.authorization, { title: 'X', slug: 'ok-slug', domains: ['localhost'] });
    expect(badDomain.status).toBe(400);
    expect(badDomain.body.error).toMatch(/^Ugyldig forespørsel: domains: /);
  });
});

describe('POST /intentions/publish_article and unpublish_article', () => {
  it('needs admin on the publication: a member gets 403, a stranger 404', async () => {
    const pub = await publication();
    const member = await ctx.addPerson('pub-member');
    await post('/intentions/grant_access', owner, { subject_id: member.id, object_id: pub.id, access: 'member' });
    const theirs = (await post('/intentions/create_node', member.authorization, { node_kind: 'content', title: 'Mitt' })).body.id;
    expect((await post('/intentions/publish_article', member.authorization, { publication_id: pub.id, node_id: theirs })).status).toBe(403);
    const stranger = await ctx.addPerson('pub-stranger');
    const strangers = (await post('/intentions/create_node', stranger.authorization, { node_kind: 'content', title: 'Fremmed' })).body.id;
    const res = await post('/intentions/publish_article', stranger.authorization, { publication_id: pub.id, node_id: strangers });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Finnes ikke: publication_id');
  });

  it('needs admin on the article: hidden from the caller is 404, a discoverable or readable node of someone else 403 (issue 22)', async () => {
    const pub = await publication();
    const other = await ctx.addPerson('pub-author');
    const hidden = (await post('/intentions/create_node', other.authorization, { node_kind: 'content', title: 'Skjult' })).body.id;
    const discoverable = (await post('/intentions/create_node', other.authorization, { node_kind: 'content', title: 'Synlig', visibility: 'discoverable' })).body.id;
    const readable = (await post('/intentions/create_node', other.authorization, { node_kind: 'content', title: 'Lesbar', visibility: 'readable' })).body.id;
    expect((await post('/intentions/publish_article', owner, { publication_id: pub.id, node_id: hidden })).status).toBe(404);
    expect((await post('/intentions/publish_article', owner, { publication_id: pub.id, node_id: discoverable })).status).toBe(403);
    expect((await post('/intentions/publish_article', owner, { publication_id: pub.id, node_id: readable })).status).toBe(403);
  });

  it('publishes once (a second time is 409) with a published_in edge article → publication; unpublish removes it', async () => {
    const pub = await publication();
    const id = await node('Én gang');
    const edgeId = await publish(pub.id, id);
    const edge = await ctx.database.db.selectFrom('edges').selectAll().where('id', '=', edgeId).executeTakeFirstOrThrow();
    expect(edge).toMatchObject({ source_id: id, target_id: pub.id, edge_type: 'published_in' });
    expect((await post('/intentions/publish_article', owner, { publication_id: pub.id, node_id: id })).status).toBe(409);
    expect((await request(app).get(`/pub/${pub.slug}/artikkel/${id}`)).status).toBe(200);
    const un = await post('/intentions/unpublish_article', owner, { edge_id: edgeId });
    expect(un.status).toBe(200);
    expect((await request(app).get(`/pub/${pub.slug}/artikkel/${id}`)).status).toBe(404);
  });

  it('a publishing edge cannot be made or removed through the generic edge operations', async () => {
    const pub = await publication();
    const id = await node('Snarvei');
    const made = await post('/intentions/create_edge', owner, { source_id: id, target_id: pub.id, edge_type: 'published_in' });
    expect(made.status).toBe(400);
    const edgeId = await publish(pub.id, id);
    const removed = await post('/intentions/delete_edge', owner, { edge_id: edgeId });
    expect(removed.status).toBe(400);
    expect(await ctx.database.db.selectFrom('edges').select('id').where('id', '=', edgeId).executeTakeFirst()).toBeDefined();
  });
});

describe('published pages', () => {
  it('the front page lists published articles newest first, as HTML with a 404 page that is HTML too', async () => {
    const pub = await publication();
    const a = await article(pub.id, 'Først');
    const b = await article(pub.id, 'Sist <b>fet</b>');
    const res = await request(app).get(`/pub/${pub.slug}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text.indexOf(b)).toBeLessThan(res.text.indexOf(a));
    expect(res.text).toContain('Sist &lt;b&gt;fet&lt;/b&gt;');
    for (const path of ['/pub/finnes-ikke', `/pub/${pub.slug}/nei`, `/pub/${pub.slug}/artikkel/${ctx.collectionId}`, `/pub/${pub.slug}/artikkel/ikke-en-uuid`]) {
      const missing = await request(app).get(path);
      expect([path, missing.status]).toEqual([path, 404]);
      expect(missing.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(missing.text).toContain('Siden finnes ikke');
    }
  });

  it('a hidden node that is not published never appears on any page, in search or in the archive', async () => {
    const pub = await publication();
    const shown = await article(pub.id, 'Offentlig hemmelighetsord', 'Synlig tekst om hemmelighetsord');
    const secret = await node('Skjult hemmelighetsord', 'Skjult tekst om hemmelighetsord', 'hidden');
    // Even an open node is not on the pages until published.
    const open = await node('Åpen hemmelighetsord', 'Åpen tekst', 'open');
    for (const id of [shown, secret, open]) expect((await post('/intentions/tag_node', owner, { node_id: id, tag: 'Hemmelig' })).status).toBe(201);
    const pages = ['', '/arkiv', '/sok?q=hemmelighetsord', '/kategori/hemmelig', '/om', `/artikkel/${secret}`, `/artikkel/${open}`];
    for (const path of pages) {
      const res = await request(app).get(`/pub/${pub.slug}${path}`);
      expect(res.text).not.toContain(secret);
      expect(res.text).not.toContain('Skjult');
      expect(res.text).not.toContain(open);
      expect(res.text).not.toContain('Åpen');
    }
    expect((await request(app).get(`/pub/${pub.slug}/sok?q=hemmelighetsord`)).text).toContain(shown);
    expect((await request(app).get(`/pub/${pub.slug}/kategori/hemmelig`)).text).toContain(shown);
    expect((await request(app).get(`/pub/${pub.slug}/arkiv`)).text).toContain(shown);
  });

  it('listing pages are paginated with ?side=2; a page past the end or a bad number is 404', async () => {
    const pub = await publication();
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) ids.push(await article(pub.id, `Sak ${i}`));
    const first = await request(app).get(`/pub/${pub.slug}`);
    const second = await request(app).get(`/pub/${pub.slug}?side=2`);
    expect(first.text).toContain(ids[24]);
    expect(first.text).not.toContain(ids[4]);
    expect(first.text).toContain(`href="/pub/${pub.slug}?side=2"`);
    expect(second.status).toBe(200);
    expect(ids.slice(0, 5).every((id) => second.text.includes(id))).toBe(true);
    expect(second.text).not.toContain(ids[5]);
    expect((await request(app).get(`/pub/${pub.slug}/arkiv?side=2`)).text).toContain(ids[0]);
    for (const side of ['3', '0', 'abc']) expect((await request(app).get(`/pub/${pub.slug}?side=${side}`)).status).toBe(404);
  });

  it('the archive groups articles by month, newest first', async () => {
    const pub = await publication();
    const jan = await article(pub.id, 'Januarsak');
    const mar = await article(pub.id, 'Marssak');
    await sql`update edges set created_at = '2026-01-15T12:00:00Z' where source_id = ${jan} and edge_type = 'published_in'`.execute(ctx.database.db);
    await sql`update edges set created_at = '2026-03-02T12:00:00Z' where source_id = ${mar} and edge_type = 'published_in'`.execute(ctx.database.db);
    const res = await request(app).get(`/pub/${pub.slug}/arkiv`);
    expect(res.text.indexOf('mars 2026')).toBeGreaterThan(0);
    expect(res.text.indexOf('mars 2026')).toBeLessThan(res.text.indexOf('Marssak'));
    expect(res.text.indexOf('Marssak')).toBeLessThan(res.text.indexOf('januar 2026'));
    expect(res.text.indexOf('januar 2026')).toBeLessThan(res.text.indexOf('Januarsak'));
  });

  it('search is ranked: a title hit comes before a content hit', async () => {
    const pub = await publication();
    const inContent = await article(pub.id, 'Annet emne', 'Her nevnes fjordhest en gang');
    const inTitle = await article(pub.id, 'Fjordhest i tittelen', 'Ingenting her');
    await article(pub.id, 'Uten treff', 'Ingenting');
    const res = await request(app).get(`/pub/${pub.slug}/sok?q=fjordhest`);
    expect(res.status).toBe(200);
    expect(res.text.indexOf(inTitle)).toBeGreaterThan(0);
    expect(res.text.indexOf(inTitle)).toBeLessThan(res.text.indexOf(inContent));
    expect(res.text).not.toContain('Uten treff');
    expect((await request(app).get(`/pub/${pub.slug}/sok?q=${encodeURIComponent('"><script>x')}`)).text).not.toContain('<script>x');
  });

  it('search words holding a NUL answer a search page, not 500', async () => {
    const pub = await publication();
    const hit = await article(pub.id, 'Fjordhest med NUL', 'Ingenting');
    const res = await request(app).get(`/pub/${pub.slug}/sok?q=fjord%00hest`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(hit);
  });

  it('the category page lists published articles with the tag; the article page links its tags', async () => {
    const pub = await publication();
    const tagged = await article(pub.id, 'Om Rust');
    const untagged = await article(pub.id, 'Om Go');
    await post('/intentions/tag_node', owner, { node_id: tagged, tag: '  Rust   Lang ' });
    const res = await request(app).get(`/pub/${pub.slug}/kategori/${encodeURIComponent('Rust Lang')}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(tagged);
    expect(res.text).not.toContain(untagged);
    const page = await request(app).get(`/pub/${pub.slug}/artikkel/${tagged}`);
    expect(page.text).toContain(`href="/pub/${pub.slug}/kategori/rust%20lang"`);
  });

  it('the about page shows the publication’s about text', async () => {
    const pub = await publication();
    const res = await request(app).get(`/pub/${pub.slug}/om`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<p>Om bladet.</p>');
    expect(res.text).toContain('<p>Andre avsnitt.</p>');
  });

  it('pages send an ETag and answer 304 while nothing changed', async () => {
    const pub = await publication();
    const id = await article(pub.id, 'Uendret');
    for (const path of [`/pub/${pub.slug}/artikkel/${id}`, `/pub/${pub.slug}`, `/pub/${pub.slug}/arkiv`, `/pub/${pub.slug}/om`]) {
      const first = await request(app).get(path);
      expect(first.headers.etag).toMatch(/^W\/"/);
      const again = await request(app).get(path).set('If-None-Match', first.headers.etag!);
      expect([path, again.status]).toEqual([path, 304]);
    }
    const before = (await request(app).get(`/pub/${pub.slug}/artikkel/${id}`)).headers.etag!;
    await sql`update nodes set title = 'Endret' where id = ${id}`.execute(ctx.database.db);
    const changed = await request(app).get(`/pub/${pub.slug}/artikkel/${id}`).set('If-None-Match', before);
    expect(changed.status).toBe(200);
    expect(changed.text).toContain('Endret');
  });

  it('on a custom domain the same pages answer without /pub/{slug}; other paths and hosts are not affected', async () => {
    const pub = await publication({ domains: ['avisa.example.no'] });
    const id = await article(pub.id, 'Domenesak');
    const front = await request(app).get('/').set('Host', 'Avisa.example.no:8080');
    expect(front.status).toBe(200);
    expect(front.text).toContain(`href="/artikkel/${id}"`);
    expect(front.text).not.toContain('/pub/');
    expect((await request(app).get(`/artikkel/${id}`).set('Host', 'avisa.example.no')).text).toContain('Domenesak');
    expect((await request(app).get('/arkiv').set('Host', 'avisa.example.no')).status).toBe(200);
    // Issue 22 (finding 5): a custom domain serves its page paths only; the rest is the service's.
    expect((await request(app).get('/health').set('Host', 'avisa.example.no')).status).toBe(200);
    expect((await request(app).get('/health').set('Host', 'annet.example.no')).status).toBe(200);
    expect((await request(app).get('/health').set('Host', 'inntak.test')).status).toBe(200);
  });
});

describe('front-page variants and A/B tests', () => {
  async function variant(pub: string, articleId: string, title: string, variantType = 'headline') {
    return post('/intentions/create_variant', owner, { publication_id: pub, article_id: articleId, variant_type: variantType, title });
  }

  it('a lone variant has no status; a second of the same type puts both in testing', async () => {
    const pub = await publication();
    const id = await article(pub.id, 'Testsak');
    const one = await variant(pub.id, id, 'Tittel A');
    expect(one.status).toBe(201);
    expect(one.body.ab_status).toBeNull();
    const two = await variant(pub.id, id, 'Tittel B');
    expect(two.body.ab_status).toBe('testing');
    expect(await edgeMetadata(one.body.edge_id)).toMatchObject({ variant_type: 'headline', title: 'Tittel A', ab_status: 'testing', impressions: 0, clicks: 0, ctr: 0 });
    const teaser = await variant(pub.id, id, 'Ingress', 'teaser');
    expect(teaser.body.ab_status).toBeNull();
    const edge = await ctx.database.db.selectFrom('edges').selectAll().where('id', '=', one.body.edge_id).executeTakeFirstOrThrow();
    expect(edge).toMatchObject({ source_id: pub.id, target_id: id, edge_type: 'front_page_variant' });
  });

  it('a variant needs the article published in the publication (409)', async () => {
    const pub = await publication();
    const id = await node('Upublisert');
    const res = await variant(pub.id, id, 'X');
    expect(res.status).toBe(409);
  });

  it('each front-page render shows a testing variant; each reader’s first render records one impression for it', async () => {
    const pub = await publication();
    const id = await article(pub.id, 'Egen tittel');
    const a = (await variant(pub.id, id, 'Variant Alfa')).body.edge_id;
    const b = (await variant(pub.id, id, 'Variant Beta')).body.edge_id;
    const shown = { a: 0, b: 0 };
    for (let i = 0; i < 40; i++) {
      const res = await request(app).get(`/pub/${pub.slug}`).set('User-Agent', `leser-${i}`);
      expect(res.text).not.toContain('>Egen tittel</a>');
      if (res.text.includes(`?v=${a}`)) shown.a += 1;
      if (res.text.includes(`?v=${b}`)) shown.b += 1;
    }
    expect(shown.a + shown.b).toBe(40);
    expect(shown.a).toBeGreaterThan(0);
    expect(shown.b).toBeGreaterThan(0);
    await recorder.flush();
    expect(await abEvents(a)).toEqual({ impressions: shown.a, clicks: 0 });
    expect(await abEvents(b)).toEqual({ impressions: shown.b, clicks: 0 });
    const { rows } = await sql<{ hour_of_week: number }>`select distinct hour_of_week from ab_events where variant_edge_id = ${a}`.execute(ctx.database.db);
    expect(rows.map((r) => r.hour_of_week)).toEqual([hourOfWeek(new Date())]);
  });

  it('/t records a click for the variant its reader was shown and redirects; an unknown or mismatched variant redirects and records nothing', async () => {
    const pub = await publication();
    const id = await article(pub.id, 'Klikksak');
    const other = await article(pub.id, 'Annen sak');
    const v = (await variant(pub.id, id, 'Klikk her')).body.edge_id;
    const otherVariant = (await variant(pub.id, other, 'Annen')).body.edge_id;
    const reader = (path: string) => request(app).get(path).set('User-Agent', 'klikker');
    // A click from a reader who was never shown the variant counts nothing (issue 22, finding 4).
    expect((await request(app).get(`/pub/${pub.slug}/t/${id}?v=${v}`).set('User-Agent', 'aldri-vist')).status).toBe(302);
    expect((await reader(`/pub/${pub.slug}`)).text).toContain(`?v=${v}`);
    const click = await reader(`/pub/${pub.slug}/t/${id}?v=${v}`);
    expect(click.status).toBe(302);
    expect(click.headers.location).toBe(`/pub/${pub.slug}/artikkel/${id}`);
    for (const bad of [otherVariant, ctx.collectionId, 'tull']) {
      const res = await reader(`/pub/${pub.slug}/t/${id}?v=${bad}`);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`/pub/${pub.slug}/artikkel/${id}`);
    }
    await recorder.flush();
    expect(await abEvents(v)).toEqual({ impressions: 1, clicks: 1 });
    expect(await abEvents(otherVariant)).toEqual({ impressions: 1, clicks: 0 });
  });

  it('ab_override: owner or admin of the publication only (403 otherwise); the variant wins and the others retire', async () => {
    const pub = await publication();
    const id = await article(pub.id, 'Overstyrt');
    const a = (await variant(pub.id, id, 'A-tittel')).body.edge_id;
    const b = (await variant(pub.id, id, 'B-tittel')).body.edge_id;
    const c = (await variant(pub.id, id, 'C-tittel')).body.edge_id;
    const member = await ctx.addPerson('ab-member');
    await post('/intentions/grant_access', owner, { subject_id: member.id, object_id: pub.id, access: 'member' });
    const refused = await post('/intentions/ab_override', member.authorization, { edge_id: b });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('Ingen tilgang');
    expect((await edgeMetadata(b)).ab_status).toBe('testing');
    const stranger = await ctx.addPerson('ab-stranger');
    expect((await post('/intentions/ab_override', stranger.authorization, { edge_id: b })).status).toBe(404);
    const admin = await ctx.addPerson('ab-admin');
    await post('/intentions/grant_access', owner, { subject_id: admin.id, object_id: pub.id, access: 'admin' });
    const res = await post('/intentions/ab_override', admin.authorization, { edge_id: b });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ edge_id: b, ab_status: 'winner', retired: [a, c].sort() });
    expect((await edgeMetadata(a)).ab_status).toBe('retired');
    expect((await edgeMetadata(c)).ab_status).toBe('retired');
    // The winner is always shown from now on; retired ones never.
    for (let i = 0; i < 10; i++) {
      const page = await request(app).get(`/pub/${pub.slug}`);
      expect(page.text).toContain('B-tittel');
      expect(page.text).not.toContain('A-tittel');
      expect(page.text).not.toContain('C-tittel');
    }
    expect((await post('/intentions/ab_override', owner, { edge_id: a })).status).toBe(200);
    expect((await edgeMetadata(b)).ab_status).toBe('retired');
  });
});
