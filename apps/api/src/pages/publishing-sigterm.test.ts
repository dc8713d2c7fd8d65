import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { freePort } from '@inntak/test-support';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { OPERATOR, createNode, createPerson } from '@inntak/access';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { createPublication, createVariant, publishArticle } from '@inntak/publishing';

// The API as production runs it: the built main.js (npm test builds first, like the CLI tests).
const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

let db: OpenTestDatabase;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.dispose());


describe('AB events on SIGTERM', () => {
  it('a real API process writes every impression and click it counted before it exits 0', async () => {
    const owner = await createPerson(storesOn(db.db).graph, { subject: 'sigterm' });
    const pub = await createPublication(storesOn(db.db).publishing, OPERATOR, { title: 'Signal', slug: 'signal', ownerId: owner.id });
    const article = await createNode(storesOn(db.db).graph, { personId: owner.id, isAdmin: false }, { node_kind: 'content', title: 'Sak' });
    await publishArticle(storesOn(db.db).publishing, OPERATOR, { publication_id: pub.id, node_id: article.id });
    const { edge_id: variant } = await createVariant(storesOn(db.db).publishing, OPERATOR, { publication_id: pub.id, article_id: article.id, variant_type: 'headline', title: 'V' });

    const port = await freePort();
    const child = spawn(process.execPath, [MAIN], { env: { ...process.env, DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: 'info', OIDC_ISSUER: '' }, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout! }).on('line', (line) => {
        if (line.includes('"api listening"')) resolve();
      });
      void exited.then(() => reject(new Error('the API exited before listening')));
    });
    const base = `http://127.0.0.1:${port}/pub/signal`;
    // Ten readers, three of whom click (one impression and one click each per window: issue 22).
    const links: string[] = [];
    for (let i = 0; i < 10; i++) {
      const page = await fetch(base, { headers: { 'user-agent': `leser-${i}` } });
      expect(page.status).toBe(200);
      // Each reader's /t link carries their signed impression id (issue 24).
      links.push(/href="([^"]*\/t\/[^"]*)"/.exec(await page.text())![1]!.replaceAll('&amp;', '&'));
    }
    for (let i = 0; i < 3; i++) expect((await fetch(`http://127.0.0.1:${port}${links[i]}`, { redirect: 'manual', headers: { 'user-agent': `leser-${i}` } })).status).toBe(302);
    // At once: the last counts are still inside their one-second batch; only the shutdown writes them.
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const { rows } = await sql<{ impressions: string; clicks: string }>`
      select coalesce(sum(impressions), 0) as impressions, coalesce(sum(clicks), 0) as clicks from ab_events where variant_edge_id = ${variant}`.execute(db.db);
    expect(rows[0]).toEqual({ impressions: '10', clicks: '3' });
  });
});
