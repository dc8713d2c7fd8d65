import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { logInAs, startStudioScene, WalkChecker, WIDTHS, type StudioScene } from './studio-walk.js';
import { createNode, createPerson, OPERATOR } from '@inntak/access';
import { createPublication, createVariant, publishArticle } from '@inntak/publishing';

/**
 * The editor's A/B walk (issue 39, point 7): an editor sees a running test — tested against the
 * article's own title, with a low-data warning, its lift in words and a chart that reads on a
 * phone — chooses a winner, confirms on the page that says the test has not decided, and sees
 * the front page show it. At 1280 and 390 px, every page checked (axe, overflow, vnu, screenshot).
 */
let scene: StudioScene;
let db: OpenTestDatabase;
let pub: string;
const walk = new WalkChecker('ab');
/** One test per width: choosing a winner ends it. */
const TESTS: Record<number, { article: string; challenger: string }> = {
  1280: { article: 'Brua åpner', challenger: 'Endelig: brua er klar!' },
  390: { article: 'Ferja går', challenger: 'Ferja er tilbake i dag!' },
};

beforeAll(async () => {
  scene = await startStudioScene();
  db = scene.db;
  const editor = await createPerson(storesOn(db.db).graph, { subject: 'redaktor', name: 'Redaktør' });
  const actor = { personId: editor.id, isAdmin: false };
  pub = (await createPublication(storesOn(db.db).publishing, OPERATOR, { title: 'Fjordposten', slug: 'fjordposten', about: 'Lokalavis.', domains: [], ownerId: editor.id })).id;
  for (const { article, challenger } of Object.values(TESTS)) {
    const node = await createNode(storesOn(db.db).graph, actor, { node_kind: 'content', title: article, content: `${article}.` });
    await publishArticle(storesOn(db.db).publishing, actor, { publication_id: pub, node_id: node.id });
    await createVariant(storesOn(db.db).publishing, actor, { publication_id: pub, article_id: node.id, variant_type: 'headline', title: challenger, with_original: true });
    // The test began an hour ago; its first counts, as the recorder writes them: few impressions, so the page warns.
    await db.pool.query(`update ab_tests set round_started_at = now() - interval '1 hour' where article_id = $1`, [node.id]);
    const { rows } = await db.pool.query<{ id: string; control: boolean }>(
      `select id, metadata ? 'control' as control from edges where edge_type = 'front_page_variant' and target_id = $1`,
      [node.id],
    );
    for (const { id, control } of rows) {
      await db.pool.query(
        `insert into ab_events (variant_edge_id, hour_of_week, impressions, clicks, recorded_at) values ($1, 1, 20, $2, now() - interval '40 minutes'), ($1, 1, 18, $3, now() - interval '10 minutes')`,
        [id, control ? 1 : 2, control ? 1 : 3],
      );
    }
  }
});

afterAll(() => scene?.close());

describe('the editor’s A/B walk', () => {
  it.each(WIDTHS)('at %i px: sees the running test, is warned of low data, confirms and picks a winner', async (width) => {
    const { article, challenger } = TESTS[width]!;
    const page = await logInAs(scene, 'redaktor', width);
    await page.goto(`${scene.base}/studio/publikasjoner/${pub}`);
    const section = page.locator('section', { has: page.getByRole('heading', { name: article, level: 2 }) });
    await expect(section.getByText(`${article} (originalen)`).count()).resolves.toBeGreaterThan(0);
    await expect(section.getByText('Lite data:').count()).resolves.toBe(1);
    await expect(section.getByText(/flere klikk enn originalen, men usikkert/).count()).resolves.toBe(1);
    // The chart has points in its first hour, and its words are page text: at least 12 CSS px on a phone too.
    await expect(section.locator('.chart svg.lines polyline').count()).resolves.toBeGreaterThan(2);
    const sizes = await section.locator('.chart .y span, .chart .x span, .chart .legend li').evaluateAll((els) => els.map((e) => Number.parseFloat((globalThis as unknown as { getComputedStyle(e: unknown): { fontSize: string } }).getComputedStyle(e).fontSize)));
    expect(sizes.length).toBeGreaterThan(3);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(12);
    // The legend's samples are small marks beside their labels, not the width of the page.
    const marks = await section.locator('.chart .legend svg').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
    expect(Math.max(...marks)).toBeLessThan(40);
    await walk.check(page, 'publikasjon');

    await section.getByRole('button', { name: new RegExp(`^Velg som vinner\\W+${challenger}`) }).click();
    await page.waitForURL(/\/vinner\?edge_id=/);
    await expect(page.getByText('Testen har ikke avgjort ennå.').count()).resolves.toBe(1);
    await expect(page.getByText('Lite data:').count()).resolves.toBe(1);
    await walk.check(page, 'bekreft-vinner');

    await page.getByRole('button', { name: `Ja, velg «${challenger}» som vinner` }).click();
    await page.waitForURL(/\?ok=vinner$/);
    await expect(page.getByRole('status').textContent()).resolves.toContain('Vinneren er valgt');
    await expect(page.getByText(`Avgjort: «${challenger}» vant (valgt av en redaktør)`).count()).resolves.toBe(1);
    await walk.check(page, 'vinner-valgt');

    await page.goto(`${scene.base}/pub/fjordposten`);
    await expect(page.getByText(challenger).count()).resolves.toBeGreaterThan(0);
    await page.context().close();
  }, 180_000);

  it('every page of the walk passes the Nu HTML Checker', async () => {
    await walk.validate();
  });
});
