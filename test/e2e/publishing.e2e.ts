import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { OPERATOR, createNode, createPerson, tagNode } from '@inntak/access';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { CHROMIUM_PATH } from '@inntak/test-support';
import { startApiServer, type ApiServer } from '../../apps/api/src/api-server.js';
import { NoIssuerVerifier } from '../../apps/api/src/oidc-verifier.js';
import { createPublication, createVariant, publishArticle } from '@inntak/publishing';

/**
 * The published pages in a real browser. Debian's chromium (`apt-get install -y chromium`;
 * .ci/run installs it when missing); CHROMIUM_PATH names another binary. Without a browser
 * test/e2e/global-setup.js stops the run, saying so: it never passes silently.
 */
const RESULTS = fileURLToPath(new URL('../../test-results/', import.meta.url));
const DOMAIN = 'avisa.e2e.test';

let db: OpenTestDatabase;
let api: ApiServer;
let browser: Browser;
let page: Page;
let base: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  const logger = { error() {}, warn() {}, info() {}, debug() {} };
  db = await openTestDatabase(logger);
  api = await startApiServer(
    {
      logger,
      database: db,
      databaseUrl: db.url,
      baseUrl: 'http://127.0.0.1',
      verifier: new NoIssuerVerifier(),
      bodyLimitBytes: 1024 * 1024,
      slowRequestMs: 200,
      realtime: { maxQueue: 1000, initialSync: { collections: 50, nodesPerCollection: 20 } },
    },
    0,
    '127.0.0.1',
  );
  base = api.url;

  const owner = await createPerson(storesOn(db.db).graph, { subject: 'redaktor', name: 'Redaktør' });
  const actor = { personId: owner.id, isAdmin: false };
  const pub = await createPublication(storesOn(db.db).publishing, OPERATOR, { title: 'Fjordposten', slug: 'fjordposten', about: 'Lokalavis for fjorden.', domains: [DOMAIN], ownerId: owner.id });
  ids.pub = pub.id;
  const article = async (key: string, title: string, content: string, publishedAt: string) => {
    const { id } = await createNode(storesOn(db.db).graph, actor, { node_kind: 'content', title, content });
    await publishArticle(storesOn(db.db).publishing, actor, { publication_id: pub.id, node_id: id });
    await db.pool.query(`update edges set created_at = $1::timestamptz where source_id = $2 and edge_type = 'published_in'`, [publishedAt, id]);
    ids[key] = id;
  };
  await article('ferry', 'Ny ferje i rute', 'Ferja går nå hver time.\n\nBilletter selges om bord.', '2026-10-05T08:00:00Z');
  await article('bridge', 'Brua åpner', 'Den nye brua åpner for trafikk i morgen. Ordføreren klipper snoren.', '2026-11-20T08:00:00Z');
  await article('salmon', 'Rekordsesong for laks', 'Laksefisket har aldri vært bedre.', '2026-11-21T08:00:00Z');
  await tagNode(storesOn(db.db).graph, actor, { node_id: ids.salmon!, tag: 'Fiske' });
  // A hidden node that is not published: it must never show.
  ids.secret = (await createNode(storesOn(db.db).graph, actor, { node_kind: 'content', title: 'Hemmelig utkast om brua', content: 'Ikke publisert.' })).id;
  // The front page shows this variant instead of the article's own title.
  ids.variant = (await createVariant(storesOn(db.db).publishing, OPERATOR, { publication_id: pub.id, article_id: ids.bridge!, variant_type: 'headline', title: 'Endelig: brua er klar!', teaser: 'Åpner i morgen.' })).edge_id;

  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    // Running as root in CI; the custom domain resolves to the test server.
    args: ['--no-sandbox', `--host-resolver-rules=MAP ${DOMAIN} 127.0.0.1`],
  });
  // A phone-sized window: the pages must be readable there.
  page = await browser.newPage({ viewport: { width: 390, height: 844 } });
});

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await db?.dispose();
});

async function fitsThePhone(): Promise<void> {
  // A string, so the test's types need no DOM library.
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  expect(overflow).toBeLessThanOrEqual(0);
}

describe('the published pages in a browser', () => {
  it('front page: newest first, the variant instead of the title, readable on a phone; screenshot kept', async () => {
    const response = await page.goto(`${base}/pub/fjordposten`);
    expect(response?.status()).toBe(200);
    expect(await page.title()).toBe('Fjordposten');
    const headlines = await page.locator('main article h2').allTextContents();
    expect(headlines).toEqual(['Rekordsesong for laks', 'Endelig: brua er klar!', 'Ny ferje i rute']);
    expect(await page.content()).not.toContain('Hemmelig');
    await fitsThePhone();
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: `${RESULTS}publishing-front-page.png`, fullPage: true });
    expect(existsSync(`${RESULTS}publishing-front-page.png`)).toBe(true);
  });

  it('click-through: the variant link records a click and lands on the article', async () => {
    await page.goto(`${base}/pub/fjordposten`);
    await page.getByRole('link', { name: 'Endelig: brua er klar!' }).click();
    await page.waitForURL(`**/pub/fjordposten/artikkel/${ids.bridge}`);
    expect(await page.locator('main h1').textContent()).toBe('Brua åpner');
    expect(await page.locator('main p').first().textContent()).toContain('Den nye brua åpner');
    await api.publishing.recorder.flush();
    const { rows } = await db.pool.query<{ clicks: string }>('select coalesce(sum(clicks), 0) as clicks from ab_events where variant_edge_id = $1', [ids.variant]);
    expect(rows[0]!.clicks).toBe('1');
  });

  it('archive: every published article under its month', async () => {
    await page.goto(`${base}/pub/fjordposten`);
    await page.getByRole('link', { name: 'Arkiv' }).click();
    await page.waitForURL('**/pub/fjordposten/arkiv');
    expect(await page.locator('main section h2').allTextContents()).toEqual(['november 2026', 'oktober 2026']);
    expect(await page.locator('main section').nth(1).textContent()).toContain('Ny ferje i rute');
    expect(await page.content()).not.toContain('Hemmelig');
    await fitsThePhone();
  });

  it('search: the form finds published articles only', async () => {
    await page.goto(`${base}/pub/fjordposten`);
    await page.getByRole('searchbox', { name: 'Søk' }).fill('brua');
    await page.getByRole('button', { name: 'Søk' }).click();
    await page.waitForURL('**/pub/fjordposten/sok?q=brua');
    expect(await page.locator('main article h2').allTextContents()).toEqual(['Brua åpner']);
    expect(await page.content()).not.toContain('Hemmelig');
  });

  it('category page from the article’s tag link', async () => {
    await page.goto(`${base}/pub/fjordposten/artikkel/${ids.salmon}`);
    await page.getByRole('link', { name: 'fiske' }).click();
    await page.waitForURL('**/pub/fjordposten/kategori/fiske');
    expect(await page.locator('main article h2').allTextContents()).toEqual(['Rekordsesong for laks']);
  });

  it('a custom domain serves the same pages at its root', async () => {
    const port = new URL(base).port;
    const response = await page.goto(`http://${DOMAIN}:${port}/`);
    expect(response?.status()).toBe(200);
    expect(await page.locator('header a.site').textContent()).toBe('Fjordposten');
    await page.getByRole('link', { name: 'Rekordsesong for laks' }).click();
    await page.waitForURL(`http://${DOMAIN}:${port}/artikkel/${ids.salmon}`);
    expect(await page.locator('main h1').textContent()).toBe('Rekordsesong for laks');
    await page.getByRole('link', { name: 'Om' }).click();
    expect(await page.locator('main').textContent()).toContain('Lokalavis for fjorden.');
  });

  it('an unknown page is an HTML 404 page', async () => {
    const response = await page.goto(`${base}/pub/fjordposten/artikkel/${ids.secret}`);
    expect(response?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Siden finnes ikke');
  });
});
