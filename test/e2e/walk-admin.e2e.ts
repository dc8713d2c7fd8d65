import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { logInAs, startStudioScene, WalkChecker, WIDTHS, type StudioScene } from './studio-walk.js';
import { createCollection, createPerson } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

/**
 * Issue 39, point 7: the webhook administrator's whole job in a real browser, at a desktop and a
 * phone width. They create a webhook in the console; a sender posts one delivery signed right
 * and one signed with a wrong secret; they find the refused one in the delivery inspector, read
 * its headers (the signature masked) and body, and replay it. Every page is checked (axe-core,
 * nothing wider than the screen, vnu, a screenshot).
 */

const SECRET = 'walk-hemmelighet';
const BODY = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'acme/inntak' }, pusher: { name: 'kari' }, commits: [] });
const signature = (secret: string) => `sha256=${createHmac('sha256', secret).update(BODY).digest('hex')}`;

let scene: StudioScene;

beforeAll(async () => {
  scene = await startStudioScene();
  const admin = await createPerson(storesOn(scene.db.db).graph, { subject: 'vevkrok', name: 'Webhook-admin' });
  await createCollection(storesOn(scene.db.db).graph, { title: 'Innboks', ownerId: admin.id });
});
afterAll(() => scene?.close());

async function keptRefusals(webhookTitle: string): Promise<number> {
  for (let waited = 0; ; waited += 100) {
    const { rows } = await scene.db.pool.query<{ n: string }>(
      `select count(*) as n from webhook_refused_requests r join nodes w on w.id = r.webhook_id where w.title = $1`,
      [webhookTitle],
    );
    if (Number(rows[0]!.n) > 0 || waited > 15_000) return Number(rows[0]!.n);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('the webhook administrator’s walk', () => {
  const checker = new WalkChecker('admin');

  it.each(WIDTHS.map((w) => [w]))('at %i px: creates a webhook, finds the refused delivery, reads its masked headers and body, replays it', async (width) => {
    const page = await logInAs(scene, 'vevkrok', width);
    const name = `GitHub ${width}`;

    await page.goto(`${scene.base}/studio/webhooks`);
    await checker.check(page, 'webhooks');
    await page.getByRole('link', { name: 'Ny webhook' }).click();
    await checker.check(page, 'ny-webhook');
    await page.getByLabel('Navn').fill(name);
    await page.getByLabel('Samling').selectOption({ label: 'Innboks' });
    await page.getByLabel('Mal').selectOption('forge-push');
    await page.getByLabel('Signaturordning').selectOption('github');
    await page.getByLabel('Hemmelighet').fill(SECRET);
    await page.getByRole('button', { name: 'Lag webhooken' }).click();
    await checker.check(page, 'laget');
    const url = (await page.locator('#url').textContent())!.trim();

    // The sender: one delivery signed right, one with a wrong secret.
    const post = (sig: string, id: string) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': id, 'x-hub-signature-256': sig }, body: BODY });
    expect((await post(signature(SECRET), `god-${width}`)).status).toBe(200);
    expect((await post(signature('feil-hemmelighet'), `feil-${width}`)).status).toBe(401);
    expect(await keptRefusals(name)).toBe(1);

    await page.getByRole('link', { name: 'Til webhooken' }).click();
    await checker.check(page, 'webhook');
    await page.getByRole('link', { name: /^Forespørsler/ }).click();
    await checker.check(page, 'foresporsler');
    await expect(page.getByText('Ugyldig signatur: signaturen stemmer ikke med hemmeligheten')).toBeTruthy();

    // Find the refused one by status, then open it.
    await page.getByLabel('Status').selectOption('failed');
    await page.getByRole('button', { name: 'Søk' }).click();
    await checker.check(page, 'avviste');
    const rows = page.locator('tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(`feil-${width}`);
    await rows.first().getByRole('link').click();
    await checker.check(page, 'avvist-foresporsel');
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain('x-hub-signature-256');
    expect(text).toContain('••••••');
    expect(text).not.toContain(signature('feil-hemmelighet').slice(7));
    expect(text).toContain('acme/inntak');

    await page.getByRole('button', { name: 'Spill av på nytt' }).click();
    await checker.check(page, 'avspilt');
    expect(await page.locator('main').textContent()).toContain('Avspilling av');
    await page.getByRole('link', { name: 'Tilbake til forespørslene' }).click();
    await checker.check(page, 'foresporsler-etter');
    expect(await page.locator('tbody').textContent()).toContain('(avspilling)');
    await page.context().close();
  }, 300_000);

  it('every page it opened passes the Nu HTML Checker', async () => {
    await checker.validate();
  }, 120_000);
});
