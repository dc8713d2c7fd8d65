import { expect } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { openTestDatabase, type OpenTestDatabase } from '@inntak/postgres/testing';
import { CHROMIUM_PATH, htmlErrors } from '@inntak/test-support';
import { startApiServer, type ApiServer } from '../../apps/api/src/api-server.js';
import { NoIssuerVerifier } from '../../apps/api/src/oidc-verifier.js';
import { OidcStudioLogin } from '../../apps/api/src/console/studio-oidc.js';
import { startTestProvider, type TestProvider } from './oidc-provider.js';

/**
 * What the console's walks share (issue 39, point 7): a real API on a real PostgreSQL, a real
 * OpenID provider to log in through, Debian's chromium, and a checker that every page a walk
 * opens has no serious or critical axe-core violation, nothing wider than the screen, and no
 * Nu HTML Checker error; every checked page is kept as a screenshot under SCREENSHOT_DIR
 * (README, "Screenshots of the console"), which CI keeps as an artifact.
 */
export const SCREENSHOT_DIR = join(process.cwd(), 'test-results', 'studio-screenshots');

/** Each walk runs at a desktop and a phone width. */
export const WIDTHS = [1280, 390] as const;

export interface StudioScene {
  db: OpenTestDatabase;
  api: ApiServer;
  provider: TestProvider;
  browser: Browser;
  base: string;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startStudioScene(): Promise<StudioScene> {
  const logger = { error() {}, warn() {}, info() {}, debug() {} };
  const db = await openTestDatabase(logger);
  const provider = await startTestProvider();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  provider.start(`${base}/studio/callback`);
  const api = await startApiServer(
    {
      logger,
      database: db,
      databaseUrl: db.url,
      baseUrl: base,
      verifier: new NoIssuerVerifier(),
      bodyLimitBytes: 1024 * 1024,
      slowRequestMs: 200,
      realtime: { maxQueue: 1000, initialSync: { collections: 50, nodesPerCollection: 20 } },
      studio: { login: new OidcStudioLogin({ issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, redirectUri: `${base}/studio/callback`, logger }) },
    },
    port,
    '127.0.0.1',
  );
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
  return {
    db,
    api,
    provider,
    browser,
    base,
    async close() {
      await browser.close();
      await api.close();
      await provider.close();
      await db.dispose();
    },
  };
}

/** A fresh browser (its own cookies) at `width`, logged in as `subject` through the provider's own form. */
export async function logInAs(scene: StudioScene, subject: string, width = 390): Promise<Page> {
  // bypassCSP: axe-core goes in as an inline script, which the console's CSP refuses (by design).
  const context = await scene.browser.newContext({ viewport: { width, height: width > 800 ? 900 : 844 }, bypassCSP: true, timezoneId: 'Europe/Oslo', locale: 'nb-NO' });
  // The provider's form imports a web font; nothing leaves this machine.
  await context.route(/^https:\/\//, (route) => route.abort());
  const page = await context.newPage();
  await page.goto(`${scene.base}/studio`);
  await page.waitForURL('**/studio/login**');
  await page.getByRole('link', { name: 'Logg inn med OpenID Connect' }).click();
  await page.waitForURL(`${scene.provider.issuer}/interaction/**`);
  await page.locator('input[name=login]').fill(subject);
  await page.locator('input[name=password]').fill('hva-som-helst');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  const consent = page.getByRole('button', { name: 'Continue' });
  await Promise.race([consent.waitFor().then(() => consent.click()), page.waitForURL(`${scene.base}/studio`)]);
  await page.waitForURL(`${scene.base}/studio`);
  return page;
}

/** axe-core in the page: no serious or critical violation; and nothing wider than the screen. */
export async function accessible(page: Page): Promise<void> {
  await page.addScriptTag({ content: axe.source });
  const violations = await page.evaluate<Array<{ id: string; impact: string; nodes: unknown[] }>>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target) })))`,
  );
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
  expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
}

/**
 * One walk's pages: `check` runs axe and the overflow check at once and keeps the page's HTML
 * (as the server sent it, before any script or axe touched it) and a full-page screenshot;
 * `validate` runs the Nu HTML Checker over every kept page in one JVM start.
 */
export class WalkChecker {
  private readonly pages: Record<string, string> = {};
  private count = 0;

  constructor(private readonly walk: string) {}

  async check(page: Page, name: string): Promise<void> {
    const width = page.viewportSize()?.width ?? 0;
    const label = `${this.walk}-${width}-${String(++this.count).padStart(2, '0')}-${name}`;
    // page.content() carries the document's own doctype; add one only where it has none.
    const content = await page.content();
    this.pages[label] = /^<!doctype/i.test(content) ? content : `<!DOCTYPE html>\n${content}`;
    await mkdir(SCREENSHOT_DIR, { recursive: true });
    await page.screenshot({ path: join(SCREENSHOT_DIR, `${label}.png`), fullPage: true });
    await accessible(page);
  }

  async validate(): Promise<void> {
    expect(await htmlErrors(this.pages)).toEqual([]);
  }
}

/**
 * The header GitHub signs a body with (scheme `github`). A scene that switches signing on sets
 * the secret before the webhook's first delivery and signs that one: a running API answers a
 * known token from memory and hears of a secret set later by SQL only on its change stream,
 * milliseconds after (docs/deliveries.md#outages), so an unsigned request sent at once could
 * still be accepted.
 */
export function githubSignature(secret: string, body: string): Record<string, string> {
  return { 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` };
}

