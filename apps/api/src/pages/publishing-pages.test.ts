import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sql } from 'kysely';
import { app, article, ctx, node, owner, post, publication, setupPublishingScene } from '../__tests__/publishing-scene.js';

// The published pages a reader sees: listings, archive, search, categories, caching and custom domains.

setupPublishingScene();

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
