import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { enqueueJob } from '@inntak/postgres/jobs';
import { githubSignature, logInAs, startStudioScene, WalkChecker, WIDTHS, type StudioScene } from './studio-walk.js';
import { createCollection, createPerson, OPERATOR } from '@inntak/access';
import { createWebhook } from '@inntak/intake';
import { storesOn } from '@inntak/postgres/testing';

/**
 * The console made for people (issue 39, point 5), walked in Chromium at 1280 and 390 px: a
 * system administrator's home page lists a failing webhook and a failed job and leads to each;
 * the header says who is logged in; times show in the browser's zone with UTC in the title; a
 * Slack message's node page (a real payload, /work/shared/fixtures) fits a phone. Every page is
 * checked by the walks' harness (axe, no overflow, vnu, a screenshot).
 */

let scene: StudioScene;
const ids: Record<string, string> = {};
const checker = new WalkChecker('home');

/** A time as the console's script writes it: the browser's local time with its zone. */
const LOCAL_TIME = /^\d\d\.\d\d\.\d{4} \d\d:\d\d (?:CET|CEST|GMT[+-]\d+)$/;
const UTC_TIME = /^\d\d\.\d\d\.\d{4} \d\d:\d\d:\d\d UTC$/;

beforeAll(async () => {
  scene = await startStudioScene();
  const { db, base } = scene;
  const admin = await createPerson(storesOn(db.db).graph, { subject: 'drift', name: 'Dag Drift', admin: true });
  await createPerson(storesOn(db.db).graph, { subject: 'rolig', name: 'Rolf Rolig' });
  const inbox = await createCollection(storesOn(db.db).graph, { title: 'Chat', ownerId: admin.id });
  const hook = await createWebhook(storesOn(db.db).webhookAdmin, OPERATOR, { collectionId: inbox.id, templateId: 'chat-message', title: 'Slack-varsler', createdBy: admin.id });
  ids.hook = hook.id;
  const deliver = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${base}/api/webhook/${hook.token}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  // Signing is on from the first delivery (githubSignature says why).
  await db.pool.query(`insert into webhook_secrets (webhook_id, scheme, secret) values ($1, 'github', 'hemmelig')`, [hook.id]);
  // A Slack bot message as Slack sends it (attachments with long unbroken URLs and block ids), signed.
  const slack = await readFile('/work/shared/fixtures/chat-message/slack-event_callback-message_subtype_bot_message.json', 'utf8');
  const accepted = await deliver(slack, githubSignature('hemmelig', slack));
  expect(accepted.status).toBe(200);
  ids.node = ((await accepted.json()) as { node_id: string }).node_id;
  // Then unsigned requests are refused: the webhook is failing.
  for (let i = 0; i < 3; i++) expect((await deliver('{"title":"usignert"}')).status).toBe(401);
  const job = await enqueueJob(db.db, 'tts_generate', { node_id: ids.node });
  await db.pool.query(`update job_queue set status = 'failed', last_error = 'talemotoren svarte ikke', finished_at = now() where id = $1`, [job]);
  ids.job = String(job);
});

afterAll(async () => {
  await scene?.close();
});

async function timesAreLocal(page: Page): Promise<void> {
  const times = await page.locator('time[datetime]').evaluateAll((all) => all.map((t) => ({ text: t.textContent ?? '', title: t.getAttribute('title') ?? '' })));
  expect(times.length).toBeGreaterThan(0);
  for (const time of times) {
    expect(time.text).toMatch(LOCAL_TIME);
    expect(time.title).toMatch(UTC_TIME);
  }
}

describe.each(WIDTHS)('at %i px', (width) => {
  it("a system administrator's home page lists the failing webhook and the failed job, and leads to each", async () => {
    const page = await logInAs(scene, 'drift', width);
    await expect(page.locator('header').textContent()).resolves.toMatch(/Innlogget som Dag Drift\s+\(systemadministrator\)/);
    await expect(page.getByRole('heading', { name: 'Trenger oppmerksomhet' }).count()).resolves.toBe(1);
    await expect(page.locator('main').textContent()).resolves.toContain('Slack-varsler: 3 avviste forespørsler');
    await timesAreLocal(page);
    await checker.check(page, 'oversikt');

    await page.getByRole('link', { name: 'Slack-varsler' }).click();
    await page.waitForURL(`**/studio/webhooks/${ids.hook}?status=failed`);
    await expect(page.locator('main').textContent()).resolves.toContain('Ugyldig signatur');
    await timesAreLocal(page);
    await checker.check(page, 'webhook-feil');

    // The Slack message's node page: the payload's long strings wrap inside the screen.
    await page.goto(`${scene.base}/studio/webhooks/${ids.hook}/noder/${ids.node}`);
    await expect(page.locator('main').textContent()).resolves.toContain('app.clickup.com');
    await checker.check(page, 'slack-node');

    await page.goto(`${scene.base}/studio`);
    await page.getByRole('link', { name: '1 jobb har feilet' }).click();
    await page.waitForURL('**/studio/system?status=failed');
    await expect(page.locator('main').textContent()).resolves.toContain('talemotoren svarte ikke');
    await timesAreLocal(page);
    await checker.check(page, 'system-feilet');
    await page.context().close();
    // Four pages, each with axe and a full-page screenshot: a hang is minutes, not this.
  }, 240_000);

  it('someone with nothing needing them is told all looks well', async () => {
    const page = await logInAs(scene, 'rolig', width);
    await expect(page.locator('header').textContent()).resolves.toContain('Innlogget som Rolf Rolig');
    await expect(page.locator('header').textContent()).resolves.not.toContain('systemadministrator');
    await expect(page.getByRole('status').textContent()).resolves.toContain('Alt ser bra ut.');
    await checker.check(page, 'oversikt-rolig');
    await page.context().close();
  });
});

describe('the console under its own Content-Security-Policy', () => {
  it("runs its one script (allowed by hash): times in the browser's own zone, here New York's", async () => {
    const admin = await logInAs(scene, 'drift', 1280);
    const storageState = await admin.context().storageState();
    await admin.context().close();
    // No bypassCSP here (the harness needs it for axe): the page's own policy decides.
    const context = await scene.browser.newContext({ storageState, timezoneId: 'America/New_York', locale: 'nb-NO' });
    const page = await context.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') refused.push(message.text());
    });
    await page.goto(`${scene.base}/studio`);
    const time = page.locator('time[datetime]').first();
    await expect(time.textContent()).resolves.toMatch(/^\d\d\.\d\d\.\d{4} \d\d:\d\d (?:EST|EDT|GMT-[45])$/);
    await expect(time.getAttribute('title')).resolves.toMatch(UTC_TIME);
    expect(refused).toEqual([]);
    await context.close();
  });
});

describe('the pages the walk opened', () => {
  it('have no Nu HTML Checker error', async () => {
    await checker.validate();
  });
});
