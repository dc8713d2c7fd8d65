import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { uuidv7 } from '@inntak/core';
import { LocalFileStore } from '@inntak/files';
import { fileKeyOf } from '@inntak/media';
import { createMediaNode } from '@inntak/postgres/media';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { CHROMIUM_PATH } from '@inntak/test-support';
import { startApiServer, type ApiServer } from '../../apps/api/src/api-server.js';
import { NoIssuerVerifier } from '../../apps/api/src/oidc-verifier.js';
import { createNode, createPerson, OPERATOR } from '@inntak/access';
import { createPublication, publishArticle } from '@inntak/publishing';

/**
 * Issue 25 in a real browser: Markdown on the page, a 320 px phone with 200-character words
 * and URLs, an article's audio that plays, and the RSS feed.
 */
const LONG_WORD = 'Donaudampfschifffahrtsgesellschaftskapitänsmütze'.repeat(5).slice(0, 200);
const LONG_URL = `https://eksempel.no/${'sti'.repeat(70)}`.slice(0, 200);

let db: OpenTestDatabase;
let api: ApiServer;
let browser: Browser;
let page: Page;
let base: string;
let articleId: string;
let audioId: string;

/** One second of a 440 Hz tone as 8 kHz 16-bit mono WAV: something a browser can decode. */
function toneWav(): Uint8Array {
  const rate = 8000;
  const samples = rate;
  const buffer = Buffer.alloc(44 + samples * 2);
  buffer.write('RIFF', 0);
  buffer.writeUInt32LE(36 + samples * 2, 4);
  buffer.write('WAVEfmt ', 8);
  buffer.writeUInt32LE(16, 16);
  buffer.writeUInt16LE(1, 20);
  buffer.writeUInt16LE(1, 22);
  buffer.writeUInt32LE(rate, 24);
  buffer.writeUInt32LE(rate * 2, 28);
  buffer.writeUInt16LE(2, 32);
  buffer.writeUInt16LE(16, 34);
  buffer.write('data', 36);
  buffer.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++) buffer.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), 44 + i * 2);
  return buffer;
}

beforeAll(async () => {
  const logger = { error() {}, warn() {}, info() {}, debug() {} };
  db = await openTestDatabase(logger);
  const storageDir = await mkdtemp(join(tmpdir(), 'inntak-e2e-media-'));
  api = await startApiServer(
    {
      logger,
      database: db,
      databaseUrl: db.url,
      baseUrl: 'http://127.0.0.1',
      verifier: new NoIssuerVerifier(),
      bodyLimitBytes: 1024 * 1024,
      slowRequestMs: 200,
      storageDir,
      realtime: { maxQueue: 1000, initialSync: { collections: 50, nodesPerCollection: 20 } },
    },
    0,
    '127.0.0.1',
  );
  base = api.url;
  const owner = await createPerson(storesOn(db.db).graph, { subject: 'leser-redaktor', name: 'Redaktør' });
  const actor = { personId: owner.id, isAdmin: false };
  const pub = await createPublication(storesOn(db.db).publishing, OPERATOR, { title: 'Fjordposten', slug: 'fjordposten', about: '**Lokalavis** for fjorden.', ownerId: owner.id });
  const content = [`Et langt ord: ${LONG_WORD}`, '', `Og en lenke: <${LONG_URL}>`, '', '- **Repo:** o/r', '- **Gren:** `main`', '', '> sitat'].join('\n');
  articleId = (await createNode(storesOn(db.db).graph, actor, { node_kind: 'content', title: 'Lang tekst på mobil', content })).id;
  await publishArticle(storesOn(db.db).publishing, actor, { publication_id: pub.id, node_id: articleId });
  audioId = uuidv7();
  const files = new LocalFileStore(storageDir);
  const wav = toneWav();
  const key = fileKeyOf(audioId, 'audio/wav');
  await files.commit(await files.writeTemp(key, wav), key);
  const lastAccessed = new Date().toISOString();
  await createMediaNode(db.db, { id: audioId, ownerId: articleId, title: 'Opplesning', metadata: { media_type: 'audio', mime: 'audio/wav', bytes: wav.length, generated: true, regenerable: true, last_accessed_at: lastAccessed } });
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required'] });
  // The narrowest phone the issue names.
  page = await browser.newPage({ viewport: { width: 320, height: 640 } });
});

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await db?.dispose();
});

describe('pages a reader would choose, in a browser', () => {
  it('a Markdown list is a <ul>, and a 320 px phone needs no sideways scrolling with 200-character words and URLs', async () => {
    expect((await page.goto(`${base}/pub/fjordposten/artikkel/${articleId}`))?.status()).toBe(200);
    expect(await page.locator('main .content ul > li').allTextContents()).toEqual(['Repo: o/r', 'Gren: main']);
    expect(await page.locator('main .content ul strong').first().textContent()).toBe('Repo:');
    expect(await page.locator(`main .content a[href="${LONG_URL}"]`).getAttribute('rel')).toBe('nofollow ugc noopener');
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(0);
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('nb');
  });

  it("the article's audio plays: <audio> reaches readyState ≥ 2 from its public URL", async () => {
    await page.goto(`${base}/pub/fjordposten/artikkel/${articleId}`);
    const audio = page.locator('main audio');
    expect(await audio.getAttribute('src')).toBe(`/pub/fjordposten/medier/${audioId}`);
    await page.evaluate<void>("document.querySelector('main audio').load()");
    // Polled from here: page.waitForFunction polls a string inside the page with eval, which the
    // page's own Content-Security-Policy refuses whenever the first check is not already true.
    for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
      if ((await page.evaluate<number>('document.querySelector("main audio").readyState')) >= 2) break;
    }
    const state = await page.evaluate<{ ready: number; duration: number }>('({ ready: document.querySelector("main audio").readyState, duration: document.querySelector("main audio").duration })');
    expect(state.ready).toBeGreaterThanOrEqual(2);
    expect(state.duration).toBeCloseTo(1, 1);
  });

  it('the feed is RSS 2.0 a browser parses as XML, with the article in it', async () => {
    const response = await page.goto(`${base}/pub/fjordposten/feed.xml`);
    expect(response?.headers()['content-type']).toBe('application/rss+xml; charset=utf-8');
    const text = await response!.text();
    // A string, so the test's types need no DOM library: the feed parsed by the browser's own XML parser.
    const parse = `((xml) => { const d = new DOMParser().parseFromString(xml, 'application/xml'); const link = d.querySelector('item > link');
      return { root: d.documentElement.nodeName, version: d.documentElement.getAttribute('version'), error: d.getElementsByTagName('parsererror').length,
        items: d.getElementsByTagName('item').length, link: link && link.textContent }; })(${JSON.stringify(text)})`;
    const parsed = await page.evaluate<{ root: string; version: string | null; error: number; items: number; link: string | null }>(parse);
    expect(parsed).toEqual({ root: 'rss', version: '2.0', error: 0, items: 1, link: `http://127.0.0.1/pub/fjordposten/artikkel/${articleId}` });
  });
});
