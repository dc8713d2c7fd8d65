import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { runGovernedOnce } from '../../apps/worker/src/__tests__/run-governed-once.js';
import { logInAs, startStudioScene, WalkChecker, WIDTHS, type StudioScene } from './studio-walk.js';
import { createCollection, createNode, createPerson } from '@inntak/access';

/**
 * The operator's job (issue 39, point 7), as a person would do it in Chromium at 1280 and 390
 * px: log in as a system administrator, change a priority rule, fix an orchestration's script
 * (a broken one first: the line and column show beside the field), run it with input and re-run
 * the run, watching each finish (a real graphile-worker runs the queued jobs between the clicks),
 * and give a person access to a new collection. Every page is checked (axe, no overflow, vnu).
 */

let scene: StudioScene;
let db: OpenTestDatabase;
let base: string;
let orchestration: string;
const checker = new WalkChecker('operator');

const GOOD = 'steps:\n  - action: create_node\n    with: { node_kind: content, title: "Bestilt: {event.input.hva}" }\n';
const BROKEN = 'steps:\n  - action: create_node\n    with: { node_kind: content, title: "x" }\n  - acton: create_node\n';

beforeAll(async () => {
  scene = await startStudioScene();
  ({ db, base } = scene);
  await createPerson(storesOn(db.db).graph, { subject: 'drift', name: 'Drift', admin: true });
  await createPerson(storesOn(db.db).graph, { subject: 'vakt', name: 'Vera Vakt' });
  const owner = await createPerson(storesOn(db.db).graph, { subject: 'eier', name: 'Eier' });
  const inbox = await createCollection(storesOn(db.db).graph, { title: 'Innboks', ownerId: owner.id });
  const made = await createNode(storesOn(db.db).graph, { personId: owner.id, isAdmin: false }, { node_kind: 'orchestration', title: 'Bestilling', content: GOOD.replace('Bestilt', 'Gammel'), collection_id: inbox.id, metadata: { trigger: { event: 'manual' } } }
  );
  orchestration = made.id;
});

afterAll(() => scene?.close());

/** Runs every queued job once through the worker's real governed task list (graphile-worker's runOnce). */
const work = () => runGovernedOnce(db);

async function submit(page: Page, button: string | RegExp, url: string | RegExp = /.*/): Promise<void> {
  await Promise.all([page.waitForURL(url), page.getByRole('button', { name: button }).first().click()]);
}

async function notice(page: Page): Promise<string> {
  return (await page.getByRole('status').first().textContent()) ?? '';
}

describe('the operator', () => {
  for (const width of WIDTHS) {
    it(`edits a rule, fixes and runs an orchestration, re-runs a run, and adds a person to a collection (${width} px)`, async () => {
      const page = await logInAs(scene, 'drift', width);
      await checker.check(page, 'oversikt');

      // A priority rule on /studio/system.
      await page.goto(`${base}/studio/system`);
      await checker.check(page, 'system');
      const jobType = (await page.locator('#regler ~ form legend').first().textContent())!;
      await page.locator(`#base_priority-${jobType}`).fill(String(width === 1280 ? 7 : 8));
      await submit(page, `Lagre ${jobType}`, /\/studio\/system\?ok=regel$/);
      expect(await notice(page)).toContain('Regelen er lagret');
      expect(await page.locator(`#base_priority-${jobType}`).inputValue()).toBe(String(width === 1280 ? 7 : 8));
      await checker.check(page, 'system-regel-lagret');

      // The orchestration's script: a broken one shows where it is wrong, beside the field.
      await page.getByRole('navigation', { name: 'Hovedmeny' }).getByRole('link', { name: 'Orkestreringer' }).click();
      await page.waitForURL('**/studio/orkestreringer');
      await checker.check(page, 'orkestreringer');
      await page.getByRole('link', { name: /^Bestilling/ }).click();
      await page.waitForURL(new RegExp(`/studio/orkestreringer/${orchestration}$`));
      await checker.check(page, 'orkestrering');
      await page.getByRole('textbox', { name: 'Skript', exact: true }).fill(BROKEN);
      await submit(page, 'Lagre skriptet', new RegExp(`/studio/orkestreringer/${orchestration}/skript$`));
      const error = page.locator('#script-feil');
      expect(await error.textContent()).toMatch(/^linje 4, kolonne \d+: /);
      expect(await page.getByRole('textbox', { name: 'Skript', exact: true }).getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByRole('textbox', { name: 'Skript', exact: true }).inputValue()).toBe(BROKEN);
      await checker.check(page, 'skript-feil');
      await page.getByRole('textbox', { name: 'Skript', exact: true }).fill(GOOD);
      await submit(page, 'Lagre skriptet', new RegExp(`/studio/orkestreringer/${orchestration}\\?ok=skript$`));
      expect(await notice(page)).toContain('Skriptet er lagret');

      // Run it with input; the worker runs it; the page shows it finished with its step.
      await page.getByLabel('Inndata (JSON-objekt)').fill(`{"hva": "kaffe ${width}"}`);
      await submit(page, /^Kjør$/, new RegExp(`/studio/orkestreringer/${orchestration}\\?ok=kjort`));
      expect(await notice(page)).toContain('Kjøringen er lagt i kø');
      expect(await page.locator('section[aria-labelledby^="kjoring-"] h3').first().textContent()).toContain('i kø');
      await checker.check(page, 'kjoring-i-ko');
      await work();
      await page.goto(`${base}/studio/orkestreringer/${orchestration}`);
      const newest = page.locator('section[aria-labelledby^="kjoring-"]').first();
      expect(await newest.locator('h3').textContent()).toContain('fullført');
      expect(await newest.textContent()).toContain(`Inndata: {"hva":"kaffe ${width}"}`);
      expect(await newest.textContent()).toContain('Forsøk: 1.');
      expect(await newest.locator('table tbody').textContent()).toContain('create_node');
      await checker.check(page, 'kjoring-fullfort');

      // Re-run that run: a new run with the same input, which the worker finishes too.
      await submit(page, /^Kjør på nytt/, new RegExp(`/studio/orkestreringer/${orchestration}\\?ok=kjort`));
      await work();
      await page.goto(`${base}/studio/orkestreringer/${orchestration}`);
      const rerun = page.locator('section[aria-labelledby^="kjoring-"]').first();
      expect(await rerun.locator('h3').textContent()).toContain('fullført');
      expect(await rerun.textContent()).toContain('ny kjøring av en tidligere, fra steg 1');
      expect(await rerun.textContent()).toContain(`Inndata: {"hva":"kaffe ${width}"}`);
      await checker.check(page, 'ny-kjoring');
      const made = await db.pool.query(`select title from nodes where node_kind = 'content' and title = $1`, [`Bestilt: kaffe ${width}`]);
      expect(made.rowCount).toBe(2);

      // A collection of their own, and a person given access to it.
      await page.getByRole('navigation', { name: 'Hovedmeny' }).getByRole('link', { name: 'Samlinger' }).click();
      await page.waitForURL('**/studio/samlinger');
      await checker.check(page, 'samlinger');
      await page.getByLabel('Navn').fill(`Vaktlag ${width}`);
      await submit(page, 'Opprett samling', /\/studio\/samlinger\/[0-9a-f-]{36}\?ok=opprettet$/);
      await page.getByLabel('Finn person (navn eller innloggings-id)').fill('vakt');
      await submit(page, 'Søk', /\?finn=vakt/);
      await checker.check(page, 'samling-sok');
      await page.getByLabel('Nivå', { exact: true }).selectOption('admin');
      await submit(page, 'Gi tilgang', /\?ok=tilgang$/);
      expect(await page.locator('main table tbody').textContent()).toContain('Vera Vakt (vakt)administrator');
      await checker.check(page, 'samling-medlemmer');
      await page.context().close();
      // A dozen checked pages (axe, a full-page screenshot each) and two worker passes: minutes on a busy machine.
    }, 300_000);
  }

  it('every page checked passes the Nu HTML Checker', async () => {
    await checker.validate();
  }, 120_000);
});
