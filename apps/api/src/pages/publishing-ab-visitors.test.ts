import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { abEvents, app, article, owner, post, publication, recorder, setupPublishingScene } from '../__tests__/publishing-scene.js';

// Issue 24, points 2 and 3: one variant per visitor, only readers' views count, and clicks only
// through the signed impression id of the /t link.

setupPublishingScene();

async function abTest() {
  const pub = await publication();
  const id = await article(pub.id, 'Besøkssak');
  const variant = async (title: string) => (await post('/intentions/create_variant', owner, { publication_id: pub.id, article_id: id, variant_type: 'headline', title })).body.edge_id as string;
  const a = await variant('Variant A');
  const b = await variant('Variant B');
  return { pub, id, a, b };
}

/** The /t link of the article on a front page, as a browser follows it. */
function clickLink(page: string, articleId: string): string {
  const href = new RegExp(`href="([^"]*/t/${articleId}[^"]*)"`).exec(page)?.[1];
  expect(href).toBeDefined();
  return href!.replaceAll('&amp;', '&');
}

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

describe('one variant per visitor', () => {
  it('a visitor keeps seeing the same variant (first-party cookie); visitors are spread over the variants', async () => {
    const { pub, id, a, b } = await abTest();
    const first = await request(app).get(`/pub/${pub.slug}`).set('User-Agent', BROWSER);
    const cookie = first.headers['set-cookie']![0]!;
    expect(cookie).toMatch(new RegExp(`^inntak_ab=[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{22}; Path=/pub/${pub.slug}; Max-Age=\\d+; HttpOnly; SameSite=Lax$`));
    expect(first.headers['cache-control']).toBe('private, no-cache');
    const seen = clickLink(first.text, id).includes(a) ? a : b;
    const visitor = request.agent(app);
    visitor.jar.setCookie(cookie.split(';')[0]!);
    for (let i = 0; i < 20; i++) {
      const page = await visitor.get(`/pub/${pub.slug}`).set('User-Agent', BROWSER);
      expect(page.headers['set-cookie']).toBeUndefined();
      expect(clickLink(page.text, id)).toContain(`v=${seen}`);
    }
    const variants = new Set<string>();
    for (let i = 0; i < 30; i++) variants.add(clickLink((await request(app).get(`/pub/${pub.slug}`).set('User-Agent', `${BROWSER} ${i}`)).text, id).includes(a) ? a : b);
    expect(variants).toEqual(new Set([a, b]));
  });

  it('260 loads and 70 clicks from one client change the counts by one impression and one click', async () => {
    const { pub, id, a, b } = await abTest();
    const client = request.agent(app);
    const links = new Set<string>();
    for (let i = 0; i < 260; i++) links.add(clickLink((await client.get(`/pub/${pub.slug}`).set('User-Agent', BROWSER)).text, id));
    // Every reload carries the same signed impression id: a reader who reloads, then clicks, counts.
    expect(links.size).toBe(1);
    const [link] = [...links];
    for (let i = 0; i < 70; i++) {
      const res = await client.get(link!).set('User-Agent', BROWSER);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`/pub/${pub.slug}/artikkel/${id}`);
    }
    await recorder.flush();
    const [ca, cb] = [await abEvents(a), await abEvents(b)];
    expect({ impressions: ca.impressions + cb.impressions, clicks: ca.clicks + cb.clicks }).toEqual({ impressions: 1, clicks: 1 });
  });
});

describe('clicks that count', () => {
  it('a click counts only with a valid signed impression id, once per impression; unsigned or forged clicks redirect and count nothing', async () => {
    const { pub, id, a, b } = await abTest();
    const page = await request(app).get(`/pub/${pub.slug}`).set('User-Agent', BROWSER);
    const link = clickLink(page.text, id);
    const shown = link.includes(a) ? a : b;
    const token = new URL(link, 'http://x').searchParams.get('i')!;
    expect(token).toMatch(/^\d+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    const forged = [
      `/pub/${pub.slug}/t/${id}?v=${shown}`,
      `/pub/${pub.slug}/t/${id}?v=${shown}&i=`,
      `/pub/${pub.slug}/t/${id}?v=${shown}&i=${token.slice(0, -2)}AA`,
      `/pub/${pub.slug}/t/${id}?v=${shown}&i=${token.replace(/^\d+/, (w) => String(Number(w) + 1))}`,
      `/pub/${pub.slug}/t/${id}?v=${shown === a ? b : a}&i=${token}`,
    ];
    for (const path of forged) {
      const res = await request(app).get(path).set('User-Agent', BROWSER);
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`/pub/${pub.slug}/artikkel/${id}`);
    }
    await recorder.flush();
    expect(await abEvents(shown)).toEqual({ impressions: 1, clicks: 0 });
    // From another client too: the signed id is the credential, and it counts once.
    for (const agent of ['other-browser', BROWSER]) expect((await request(app).get(link).set('User-Agent', agent)).status).toBe(302);
    await recorder.flush();
    expect(await abEvents(shown)).toEqual({ impressions: 1, clicks: 1 });
  });
});

describe('only a reader’s view counts', () => {
  it('HEAD, prefetch and prerender (Sec-Purpose, Purpose), known crawlers and requests without User-Agent count no impression and get no signed link', async () => {
    const { pub, id, a, b } = await abTest();
    const views = [
      request(app).head(`/pub/${pub.slug}`).set('User-Agent', BROWSER),
      request(app).get(`/pub/${pub.slug}`).set('User-Agent', BROWSER).set('Sec-Purpose', 'prefetch'),
      request(app).get(`/pub/${pub.slug}`).set('User-Agent', `${BROWSER} x`).set('Sec-Purpose', 'prefetch;prerender'),
      request(app).get(`/pub/${pub.slug}`).set('User-Agent', `${BROWSER} y`).set('Purpose', 'prefetch'),
      request(app).get(`/pub/${pub.slug}`).set('User-Agent', 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'),
      request(app).get(`/pub/${pub.slug}`).set('User-Agent', 'facebookexternalhit/1.1'),
      request(app).get(`/pub/${pub.slug}`),
    ];
    for (const view of views) {
      const res = await view;
      expect(res.status).toBe(200);
      if (res.text) expect(clickLink(res.text, id)).not.toContain('&i=');
    }
    await recorder.flush();
    expect([await abEvents(a), await abEvents(b)]).toEqual([
      { impressions: 0, clicks: 0 },
      { impressions: 0, clicks: 0 },
    ]);
    // The same browser without the prefetch header is a view.
    await request(app).get(`/pub/${pub.slug}`).set('User-Agent', BROWSER);
    await recorder.flush();
    expect((await abEvents(a)).impressions + (await abEvents(b)).impressions).toBe(1);
  });
});
