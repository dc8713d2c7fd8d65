import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OPERATOR, createCollection, createNode, createPerson, grantAccess } from '@inntak/access';
import { enqueueJob, recordDiskStatus } from '@inntak/postgres/jobs';
import { recordLogEntry } from '@inntak/postgres/orchestration';
import { type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { accessible, githubSignature, logInAs as logIn, startStudioScene, type StudioScene } from './studio-walk.js';
import { createWebhook } from '@inntak/intake';
import { createPublication, createVariant, publishArticle } from '@inntak/publishing';

/**
 * The console in a real browser (Debian's chromium), logged in through a real OpenID provider
 * (oidc-provider, its own login form), with axe-core checking every console page it opens.
 */

let scene: StudioScene;
let db: OpenTestDatabase;
let base: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  scene = await startStudioScene();
  ({ db, base } = scene);
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
  const deliver = (body: object, signed = false) =>
    fetch(`${base}/api/webhook/${hook.token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(signed ? githubSignature('hemmelig', JSON.stringify(body)) : {}) },
      body: JSON.stringify(body),
    });
  // Signing is on from the first delivery (githubSignature says why): a signed one is accepted, an unsigned one refused.
  await db.pool.query(`insert into webhook_secrets (webhook_id, scheme, secret) values ($1, 'github', 'hemmelig')`, [hook.id]);
  expect((await deliver({ title: 'Første levering', content: 'Hei' }, true)).status).toBe(200);
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

});

afterAll(() => scene?.close());

const logInAs = (subject: string) => logIn(scene, subject, 390);

describe('the console in a browser, logged in through an OpenID provider', () => {
  it('the login page and the overview have no serious accessibility problems', async () => {
    const context = await scene.browser.newContext({ viewport: { width: 390, height: 844 }, bypassCSP: true });
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
    // The test has not decided: a confirmation page first (walk-ab.e2e.ts walks it at both widths).
    await page.getByRole('button', { name: 'Ja, velg «Endelig: brua er klar!» som vinner' }).click();
    await page.waitForURL(/\?ok=vinner$/);
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
    expect(await page.locator('svg[role=img] polyline[fill=none]').count()).toBe(1);
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
