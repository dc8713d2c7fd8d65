import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { app, article, ctx, publication, sysadmin, setupPublishingScene } from '../__tests__/publishing-scene.js';

// What readers and machines get from the pages since issue 25: Markdown, one language per
// publication, the head a search engine and a link preview read, the feed and the sitemap,
// and route names in the logs.

setupPublishingScene();

const ORIGIN = 'http://inntak.test'; // BASE_URL of the test app

describe('pages a reader would choose', () => {
  it('an article written in Markdown shows as HTML: a list is a <ul>, bold is <strong>, raw HTML stays text', async () => {
    const pub = await publication();
    const id = await article(pub.id, 'Årets sesong', '## Hvor finner du dem?\n\n**Årets sesong** er god.\n\n- Kaia\n- Torget\n\n<script>alert(1)</script>');
    const res = await request(app).get(`/pub/${pub.slug}/artikkel/${id}`);
    expect(res.text).toContain('<h2>Hvor finner du dem?</h2>');
    expect(res.text).toContain('<strong>Årets sesong</strong>');
    expect(res.text).toContain('<ul>\n<li>Kaia</li>\n<li>Torget</li>\n</ul>');
    expect(res.text).not.toContain('<script>');
    // The listing's excerpt is the words, not the markup.
    const front = await request(app).get(`/pub/${pub.slug}`);
    expect(front.text).toContain('Hvor finner du dem? Årets sesong er god.');
    expect(front.text).not.toContain('**Årets');
  });

  it('a publication speaks one language: nb by default, en when created so, chrome and dates alike', async () => {
    const nb = await publication();
    const en = await publication({ language: 'en' });
    await article(nb.id, 'Norsk sak');
    await article(en.id, 'English story');
    const nbArchive = await request(app).get(`/pub/${nb.slug}/arkiv`);
    expect(nbArchive.text).toContain('<html lang="nb">');
    expect(nbArchive.text).toContain('>Arkiv</a>');
    expect(nbArchive.text).toMatch(/<h2 id="m\d{4}-\d{2}">[a-zæøå]+ \d{4}<\/h2>/);
    const enArchive = await request(app).get(`/pub/${en.slug}/arkiv`);
    expect(enArchive.text).toContain('<html lang="en">');
    expect(enArchive.text).toContain('>Archive</a>');
    expect(enArchive.text).toMatch(/<h2 id="m\d{4}-\d{2}">(January|February|March|April|May|June|July|August|September|October|November|December) \d{4}<\/h2>/);
    expect(enArchive.text).not.toContain('Søk');
    expect((await request(app).get(`/pub/${en.slug}/sok?q=ingenting`)).text).toContain('No results.');
    expect((await request(app).get(`/pub/${en.slug}/artikkel/00000000-0000-4000-8000-000000000000`)).text).toContain('Page not found');
    expect((await request(app).post('/intentions/create_publication').set('Authorization', sysadmin.authorization).send({ title: 'X', slug: 'x-de', language: 'de' })).status).toBe(400);
  });

  it('every page tells machines about itself: lang, description, Open Graph, canonical link, the feed', async () => {
    const pub = await publication();
    const id = await article(pub.id, 'Brua åpner', 'Den nye **brua** åpner i morgen.');
    const page = (await request(app).get(`/pub/${pub.slug}/artikkel/${id}`)).text;
    expect(page).toContain('<meta name="description" content="Den nye brua åpner i morgen.">');
    expect(page).toContain('<meta property="og:title" content="Brua åpner">');
    expect(page).toContain('<meta property="og:type" content="article">');
    expect(page).toContain(`<link rel="canonical" href="${ORIGIN}/pub/${pub.slug}/artikkel/${id}">`);
    expect(page).toContain(`<link rel="alternate" type="application/rss+xml" title="Bladet`);
    const about = (await request(app).get(`/pub/${pub.slug}/om`)).text;
    expect(about).toContain('<meta name="description" content="Om bladet. Andre avsnitt.">');
  });

  it('/pub/{slug}/feed.xml is an RSS 2.0 feed of the newest articles, /sitemap.xml lists the pages', async () => {
    const pub = await publication();
    const first = await article(pub.id, 'Første & beste', 'Tekst **en**.');
    const second = await article(pub.id, 'Andre', 'Tekst to.');
    const feed = await request(app).get(`/pub/${pub.slug}/feed.xml`);
    expect(feed.status).toBe(200);
    expect(feed.headers['content-type']).toBe('application/rss+xml; charset=utf-8');
    expect(feed.text).toMatch(/^<\?xml version="1.0" encoding="utf-8"\?>\s*<rss version="2.0"/);
    expect(feed.text).toContain('<language>nb</language>');
    expect(feed.text.indexOf(second)).toBeLessThan(feed.text.indexOf(first));
    expect(feed.text).toContain(`<link>${ORIGIN}/pub/${pub.slug}/artikkel/${first}</link>`);
    expect(feed.text).toMatch(/<title><!\[CDATA\[Første & beste\]\]><\/title>|<title>Første &amp; beste<\/title>/);
    expect(feed.text).toContain('Tekst en.');
    const again = await request(app).get(`/pub/${pub.slug}/feed.xml`).set('If-None-Match', feed.headers.etag!);
    expect(again.status).toBe(304);
    const sitemap = await request(app).get(`/pub/${pub.slug}/sitemap.xml`);
    expect(sitemap.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(sitemap.text).toContain('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">');
    expect(sitemap.text).toContain(`<loc>${ORIGIN}/pub/${pub.slug}/artikkel/${first}</loc>`);
  });

  it('on a custom domain the feed, sitemap and canonical links are the domain\'s', async () => {
    const pub = await publication({ domains: ['lesar.test'] });
    const id = await article(pub.id, 'På domenet');
    const page = await request(app).get(`/artikkel/${id}`).set('Host', 'lesar.test');
    expect(page.text).toContain(`<link rel="canonical" href="http://lesar.test/artikkel/${id}">`);
    const feed = await request(app).get('/feed.xml').set('Host', 'lesar.test');
    expect(feed.text).toContain(`<link>http://lesar.test/artikkel/${id}</link>`);
    expect((await request(app).get('/sitemap.xml').set('Host', 'lesar.test')).text).toContain('<loc>http://lesar.test/</loc>');
  });

  it('metrics and logs name the page kind, never the path: /pub/:slug/artikkel/:id, domain:/arkiv, /docs/assets/*', async () => {
    const pub = await publication({ domains: ['tall.test'] });
    const id = await article(pub.id, 'Telt');
    await request(app).get(`/pub/${pub.slug}`);
    await request(app).get(`/pub/${pub.slug}/artikkel/${id}`);
    await request(app).get(`/pub/${pub.slug}/feed.xml`);
    await request(app).get('/arkiv').set('Host', 'tall.test');
    await request(app).get('/pub/finnes-ikke');
    await request(app).get('/docs/assets/swagger-ui.css');
    const metrics = await request(app).get('/metrics').set('Authorization', sysadmin.authorization);
    const routes = (metrics.body.requests as Array<{ route: string; status: string }>).map((r) => `${r.route} ${r.status}`);
    expect(routes).toEqual(
      expect.arrayContaining(['/pub/:slug 200', '/pub/:slug/artikkel/:id 200', '/pub/:slug/feed.xml 200', 'domain:/arkiv 200', '/pub/:slug/* 404', '/docs/assets/* 200']),
    );
    expect(JSON.stringify(metrics.body)).not.toContain(id);
    expect(JSON.stringify(metrics.body)).not.toContain(pub.slug);
    void ctx;
  });
});
