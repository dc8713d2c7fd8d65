import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer } from 'node:net';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { OPERATOR, createCollection, createNode, createPerson, grantAccess } from '@inntak/access';
import { enqueueJob, recordDiskStatus } from '@inntak/postgres/jobs';
import { recordLogEntry } from '@inntak/postgres/orchestration';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { CHROMIUM_PATH } from '@inntak/test-support';
import { startApiServer, type ApiServer } from '../../apps/api/src/api-server.js';
import { NoIssuerVerifier } from '../../apps/api/src/oidc-verifier.js';
import { OidcStudioLogin } from '../../apps/api/src/console/studio-oidc.js';
import { startTestProvider, type TestProvider } from './oidc-provider.js';
import { createWebhook } from '@inntak/intake';
import { createPublication, createVariant, publishArticle } from '@inntak/publishing';

/**
 * The console in a real browser (Debian's chromium), logged in through a real OpenID provider
 * (oidc-provider, its own login form), with axe-core checking every console page it opens.
 */

let db: OpenTestDatabase;
let api: ApiServer;
let provider: TestProvider;
let browser: Browser;
let base: string;
const ids: Record<string, string> = {};

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  const logger = { error() {}, warn() {}, info() {}, debug() {} };
  db = await openTestDatabase(logger);
  provider = await startTestProvider();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  provider.start(`${base}/studio/callback`);
  api = await startApiServer(
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

  const editor = await createPerson(storesOn(db.db).graph, { subject: 'redaktor', name: 'Redaktør' });
  const member = await createPerson(storesOn(db.db).graph, { subject: 'medlem', name: 'Medlem' });
  const hookAdmin = await createPerson(storesOn(db.db).graph, { subject: 'vevkrok', name: 'Webhook-admin' });
  const pub = await createPublication(storesOn(db.db).publishing, OPERATOR, { title: 'Fjordposten', slug: 'fjordposten', about: 'Lokalavis.', domains: [], ownerId: editor.id });
  ids.pub = pub.id;
  await grantAccess(storesOn(db.db).graph, { personId: editor.id, isAdmin: false }, { subject_id: member.id, object_id: pub.id, access: 'member' });
  const article = await createNode(storesOn(db.db).graph, { personId: editor.id, isAdmin: false }, { node_kind: 'content', title: 'Brua åpner', content: 'Brua åpner i morgen.' });
  await publishArticle(storesOn(db.db).publishing, { personId: editor.id, isAdmin: false }, { publication_id: pub.id, node_id: article.id });
  for (const title of ['Brua åpner i morgen', 'Endelig: brua er klar!']) {
    await createVariant(storesOn(db.db).publishing, OPERATOR, { publication_id: pub.id, article_id: article.id, variant_type: 'headline', title });
  }

  const inbox = await createCollection(storesOn(db.db).graph, { title: 'Innboks', ownerId: hookAdmin.id });
  const hook = await createWebhook(storesOn(db.db).webhookAdmin, OPERATOR, { collectionId: inbox.id, templateId: null, title: 'Forge', createdBy: hookAdmin.id });
  ids.hook = hook.id;
  const deliver = (body: object) => fetch(`${base}/api/webhook/${hook.token}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect((await deliver({ title: 'Første levering', content: 'Hei' })).status).toBe(200);
  await db.pool.query(`insert into webhook_secrets (webhook_id, scheme, secret) values ($1, 'github', 'hemmelig')`, [hook.id]);
  expect((await deliver({ title: 'usignert' })).status).toBe(401);
  await db.pool.query('delete from webhook_secrets where webhook_id = $1', [hook.id]);

  // For the system administrator's and the orchestrations' pages: a job, disk history, a run.
  await createPerson(storesOn(db.db).graph, { subject: 'drift', name: 'Drift', admin: true });
  await enqueueJob(db.db, 'tts_generate', { node_id: article.id });
  for (const used of [61.5, 62, 70.25]) await recordDiskStatus(db.db, { path: '/data', totalBytes: 1000, freeBytes: Math.round(1000 - used * 10), usedPercent: used, level: 'ok' });
  const script = 'steps:\n  - action: create_node\n    with: { node_kind: content, title: "Sett: {event.node.title}" }\n';
  const orchestration = await createNode(storesOn(db.db).graph, { personId: hookAdmin.id, isAdmin: false }, { node_kind: 'orchestration', title: 'Kopier', content: script, collection_id: inbox.id, metadata: { trigger: { event: 'node.created', conditions: { node_kind: 'aldri' } } } });
  ids.orchestration = orchestration.id;
  const event = { type: 'node.created' as const, id: article.id, depth: 0 };
  await recordLogEntry(db.db, { orchestrationId: orchestration.id, jobId: null, event, record: { step: 1, action: 'create_node', fallback: null, status: 'failed', error: 'nei', duration_ms: 4 } });

  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
});

afterAll(async () => {
  await browser?.close();
  await api?.close();
  await provider?.close();
  await db?.dispose();
});

/** A fresh browser (its own cookies) at phone width, logged in as `subject` through the provider's own form. */
async function logInAs(subject: string): Promise<Page> {
  // bypassCSP: axe-core goes in as an inline script, which the console's CSP refuses (by design).
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
  // The provider's form imports a web font; nothing leaves this machine.
  await context.route(/^https:\/\//, (route) => route.abort());
  const page = await context.newPage();
  await page.goto(`${base}/studio`);
  await page.waitForURL('**/studio/login**');
  await page.getByRole('link', { name: 'Logg inn med OpenID Connect' }).click();
  await page.waitForURL(`${provider.issuer}/interaction/**`);
  await page.locator('input[name=login]').fill(subject);
  await page.locator('input[name=password]').fill('hva-som-helst');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  const consent = page.getByRole('button', { name: 'Continue' });
  await Promise.race([consent.waitFor().then(() => consent.click()), page.waitForURL(`${base}/studio`)]);
  await page.waitForURL(`${base}/studio`);
  expect(await page.locator('h1').textContent()).toBe('Oversikt');
  return page;
}

/** axe-core in the page: no serious or critical violation; and nothing wider than the phone. */
async function accessible(page: Page): Promise<void> {
  await page.addScriptTag({ content: axe.source });
  const violations = await page.evaluate<Array<{ id: string; impact: string; nodes: unknown[] }>>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target) })))`,
  );
  expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')).toEqual([]);
  expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
}

describe('the console in a browser, logged in through an OpenID provider', () => {
  it('the login page and the overview have no serious accessibility problems', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
    const page = await context.newPage();
    await page.goto(`${base}/studio/login`);
    await accessible(page);
    await context.close();
    const editor = await logInAs('redaktor');
    await accessible(editor);
    // Keyboard: the first Tab lands on the skip link, whose Enter leads to the content.
    await editor.keyboard.press('Tab');
    expect(await editor.evaluate<string>('document.activeElement.textContent')).toBe('Hopp til innholdet');
    await editor.keyboard.press('Enter');
    await editor.waitForURL('**/studio#innhold');
    await editor.context().close();
  });

  it('as an editor: overrides the test and sees the winner on the public front page', async () => {
    const page = await logInAs('redaktor');
    await page.getByRole('link', { name: 'Publikasjoner' }).first().click();
    await accessible(page);
    await page.getByRole('link', { name: 'Fjordposten' }).click();
    await page.waitForURL(`**/studio/publikasjoner/${ids.pub}`);
    expect(await page.locator('main').textContent()).toContain('For få visninger');
    await accessible(page);
    await page.getByRole('button', { name: /^Velg som vinner\W+Endelig: brua er klar!$/ }).click();
    await page.waitForURL('**?ok=vinner');
    expect(await page.locator('main').textContent()).toContain('Avgjort: «Endelig: brua er klar!» vant');
    // The front page's cache hears of the change through the change stream: a moment at most.
    const deadline = Date.now() + 10_000;
    let headlines: string[] = [];
    while (Date.now() < deadline) {
      await page.goto(`${base}/pub/fjordposten`);
      headlines = await page.locator('main article h2').allTextContents();
      if (headlines.includes('Endelig: brua er klar!')) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(headlines).toEqual(['Endelig: brua er klar!']);
    await page.context().close();
  });

  it('as a webhook admin: finds the 401 delivery and re-renders a node', async () => {
    const page = await logInAs('vevkrok');
    await page.getByRole('link', { name: 'Webhooks' }).first().click();
    await accessible(page);
    await page.getByRole('link', { name: 'Forge' }).click();
    await page.waitForURL(`**/studio/webhooks/${ids.hook}`);
    await accessible(page);
    await page.getByLabel('Status').selectOption('401');
    await page.getByRole('button', { name: 'Filtrer' }).click();
    await page.waitForURL('**?status=401');
    expect(await page.locator('main table tbody').textContent()).toContain('Ugyldig signatur');
    await page.goto(`${base}/studio/webhooks/${ids.hook}`);
    await page.getByRole('link', { name: 'Innhold', exact: true }).first().click();
    await page.waitForURL('**/noder/**');
    expect(await page.locator('main pre').last().textContent()).toContain('Første levering');
    await accessible(page);
    await page.getByRole('button', { name: 'Gjengi noden på nytt med webhookens mal' }).click();
    await page.waitForURL('**?ok=gjengitt');
    expect(await page.getByRole('status').textContent()).toContain('gjengitt på nytt');
    await page.context().close();
  });

  it('as a member: sees the publication but finds no override button', async () => {
    const page = await logInAs('medlem');
    await page.goto(`${base}/studio/publikasjoner/${ids.pub}`);
    expect(await page.locator('h1').textContent()).toBe('Fjordposten');
    expect(await page.getByRole('button', { name: /Velg som vinner/ }).count()).toBe(0);
    await accessible(page);
    await page.context().close();
  });

  it('as a system administrator: jobs, resources with the disk chart, rules; and the orchestrations pages', async () => {
    const page = await logInAs('drift');
    await page.getByRole('navigation', { name: 'Hovedmeny' }).getByRole('link', { name: 'System' }).click();
    await page.waitForURL('**/studio/system');
    expect(await page.locator('main').textContent()).toContain('i kø: 1');
    expect(await page.locator('svg[role=img] polyline').count()).toBe(1);
    await accessible(page);
    await page.getByRole('navigation', { name: 'Hovedmeny' }).getByRole('link', { name: 'Orkestreringer' }).click();
    await accessible(page);
    await page.getByRole('link', { name: 'Kopier' }).click();
    await page.waitForURL(`**/studio/orkestreringer/${ids.orchestration}`);
    expect(await page.locator('main table tbody').textContent()).toContain('nei');
    await accessible(page);
    await page.context().close();
  });
});
