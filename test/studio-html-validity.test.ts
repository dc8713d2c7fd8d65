import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { describeWithEngine, htmlErrors } from '@inntak/test-support';
import { setupTestContext, type TestContext } from '../apps/api/src/__tests__/helpers.js';
import { get, logIn, postForm, studioApp, type Browser } from '../apps/api/src/__tests__/studio-scene.js';

/**
 * Every console page through the W3C Nu HTML Checker (npm vnu-jar, run by Java), as the published
 * pages are (html-validity.test.ts): no errors. A system administrator sees every page with content.
 */

let ctx: TestContext;
let app: ReturnType<typeof studioApp>;
let admin: Browser;
const ids: Record<string, string> = {};

beforeAll(async () => {
  ctx = await setupTestContext();
  app = studioApp(ctx);
  await ctx.addPerson('drift', { admin: true });
  const owner = await ctx.ownerAuthorization();
  const api = async (path: string, body: object) => (await request(app).post(path).set('Authorization', owner).send(body)).body as Record<string, string>;
  ids.pub = (await api('/intentions/create_publication', { title: 'Fjordposten', slug: 'fjordposten' })).id!;
  ids.article = (await api('/intentions/create_node', { node_kind: 'content', title: 'Brua <åpner>', collection_id: ctx.collectionId })).id!;
  await api('/intentions/publish_article', { publication_id: ids.pub, node_id: ids.article });
  for (const title of ['Brua åpner', 'Endelig & klar', 'Tredje']) await api('/intentions/create_variant', { publication_id: ids.pub, article_id: ids.article, variant_type: 'headline', title });
  await ctx.database.pool.query(`insert into ab_events (variant_edge_id, hour_of_week, impressions, clicks) select id, 1, 50, 3 from edges where edge_type = 'front_page_variant'`);
  const webhook = await ctx.addWebhook('forge-push');
  ids.webhook = webhook.id;
  ids.node = (await request(app).post(`/api/webhook/${webhook.token}`).send({ ref: 'refs/heads/main', commits: [] })).body.node_id;
  ids.orchestration = (
    await api('/intentions/create_node', { node_kind: 'orchestration', title: 'Kopier', content: 'steps:\n  - action: create_node\n    with: { node_kind: content, title: "x" }\n', collection_id: ctx.collectionId, metadata: { trigger: { event: 'node.created', conditions: { node_kind: 'aldri' } } } })
  ).id!;
  await ctx.database.pool.query(`insert into disk_status_log (path, total_bytes, free_bytes, used_percent, level) values ('/data', 100, 40, 60, 'ok'), ('/data', 100, 30, 70, 'ok')`);
  // A node of the administrator's own, for the picker to find.
  await request(app).post('/intentions/create_node').set('Authorization', `Bearer ${await ctx.tokenFor('drift')}`).send({ node_kind: 'content', title: 'Brua & <ferja>', content: 'Tekst.' });
  admin = await logIn(app, 'drift');
});
afterAll(() => ctx.close());

describeWithEngine('java', describe, 'the console pages are valid HTML', () => {
  it('every page the console has, with content in it', async () => {
    const pages: Record<string, string> = {
      login: (await request(app).get('/studio/login')).text,
      overview: (await get(app, admin, '/studio')).text,
      webhooks: (await get(app, admin, '/studio/webhooks')).text,
      webhook: (await get(app, admin, `/studio/webhooks/${ids.webhook}`)).text,
      node: (await get(app, admin, `/studio/webhooks/${ids.webhook}/noder/${ids.node}?mal=chat-message`)).text,
      secret: (await postForm(app, admin, `/studio/webhooks/${ids.webhook}/signering`, { scheme: 'github', secret: '' })).text,
      rerender: (await postForm(app, admin, `/studio/webhooks/${ids.webhook}/gjengi`, {})).text,
      rotation: (await get(app, admin, `/studio/webhooks/${ids.webhook}/nytt-token`)).text,
      rotated: (await postForm(app, admin, `/studio/webhooks/${ids.webhook}/nytt-token`, { grace_hours: '24' })).text,
      webhookInGrace: (await get(app, admin, `/studio/webhooks/${ids.webhook}`)).text,
      publications: (await get(app, admin, '/studio/publikasjoner')).text,
      publication: (await get(app, admin, `/studio/publikasjoner/${ids.pub}`)).text,
      publicationSettings: (await get(app, admin, `/studio/publikasjoner/${ids.pub}/innstillinger`)).text,
      newArticle: (await get(app, admin, `/studio/publikasjoner/${ids.pub}/artikler/ny`)).text,
      articlePreview: (await postForm(app, admin, `/studio/publikasjoner/${ids.pub}/artikler`, { collection_id: ids.pub!, title: 'Brua', content: '## Trafikk\n\nEndelig *åpen* & [klar](https://example.org).\n\n- en\n- to', handling: 'forhandsvis' })).text,
      article: (await get(app, admin, `/studio/publikasjoner/${ids.pub}/artikler/${ids.article}`)).text,
      picker: (await get(app, admin, `/studio/publikasjoner/${ids.pub}/velg?q=brua`)).text,
      confirmWinner: (await get(app, admin, `/studio/publikasjoner/${ids.pub}/vinner?edge_id=${(await ctx.database.pool.query(`select id from edges where metadata ->> 'title' = 'Tredje'`)).rows[0].id}`)).text,
      orchestrations: (await get(app, admin, '/studio/orkestreringer')).text,
      orchestration: (await get(app, admin, `/studio/orkestreringer/${ids.orchestration}`)).text,
      system: (await get(app, admin, '/studio/system')).text,
      missing: (await get(app, admin, '/studio/finnes-ikke')).text,
      forbidden: (await postForm(app, admin, '/studio/logout', {}, 'feil')).text,
    };
    expect(pages.publication).toContain('<svg');
    expect(pages.system).toContain('<svg');
    expect(pages.articlePreview).toContain('<em>åpen</em>');
    expect(pages.picker).toContain('Publiser<span class="vh">');
    expect(await htmlErrors(pages)).toEqual([]);
  }, 120_000);
});
