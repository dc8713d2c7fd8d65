import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { get, logIn, postForm, studioApp, type Browser } from '../__tests__/studio-scene.js';

// Issue 39, point 1 (publishing): an editor creates a publication, writes an article with a
// preview, publishes it through the picker, edits its variants; each form calls the use case
// the REST intention calls, and the write policy decides.

let ctx: TestContext;
let app: Express;
let editor: Browser;
let editorId: string;
let member: { id: string; authorization: string };
let memberBrowser: Browser;
let pub: string;

const nodeCount = async () => Number((await ctx.database.pool.query(`select count(*) from nodes where node_kind = 'content'`)).rows[0].count);

beforeAll(async () => {
  ctx = await setupTestContext();
  app = studioApp(ctx);
  editorId = (await ctx.addPerson('redaktor')).id;
  member = await ctx.addPerson('medlem');
  editor = await logIn(app, 'redaktor');
  memberBrowser = await logIn(app, 'medlem');
});
afterAll(() => ctx.close());

describe('publications from the console', () => {
  it('"Du er ikke medlem av noen publikasjon." offers a way on: a form to make one, and the person id an owner needs', async () => {
    const page = await get(app, editor, '/studio/publikasjoner');
    expect(page.text).toContain('Du er ikke medlem av noen publikasjon.');
    expect(page.text).toContain(`<code>${editorId}</code>`);
    expect(page.text).toContain('<button type="submit">Lag publikasjon</button>');
  });

  it('a bad slug is named on the form, the typed values kept, and nothing is made', async () => {
    const res = await postForm(app, editor, '/studio/publikasjoner', { title: 'Fjordposten', slug: 'fjord posten!', language: 'nb', about: '' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('«Adresse (slug)» kan bare ha a–z, 0–9 og bindestrek, 1–63 tegn.');
    expect(res.text).toContain('value="Fjordposten"');
    expect((await get(app, editor, '/studio/publikasjoner')).text).toContain('Du er ikke medlem av noen publikasjon.');
  });

  it('creates a publication (create_publication) owned by the caller; a taken slug is refused on the form', async () => {
    const res = await postForm(app, editor, '/studio/publikasjoner', { title: 'Fjordposten', slug: 'fjordposten', language: 'en', about: 'Nytt fra fjorden.' });
    expect(res.status).toBe(303);
    pub = /publikasjoner\/([0-9a-f-]{36})\?ok=laget/.exec(res.headers.location!)![1]!;
    const page = await get(app, editor, res.headers.location!);
    expect(page.text).toContain('Publikasjonen er laget. Du er eier av den.');
    expect((await get(app, editor, '/studio/publikasjoner')).text).toContain('(/pub/fjordposten; owner)');
    expect((await request(app).get('/pub/fjordposten/om')).text).toContain('Nytt fra fjorden.');
    const taken = await postForm(app, editor, '/studio/publikasjoner', { title: 'Kopi', slug: 'fjordposten', language: 'nb' });
    expect(taken.status).toBe(409);
    expect(taken.text).toContain('slug er allerede i bruk');
  });

  it('edits title, language and about (update_publication); a member may not (403) and nothing changes', async () => {
    await request(app).post('/intentions/grant_access').set('Authorization', `Bearer ${await ctx.tokenFor('redaktor')}`).send({ subject_id: member.id, object_id: pub, access: 'member' }).expect(200);
    expect((await get(app, editor, `/studio/publikasjoner/${pub}/innstillinger`)).text).toContain('Nytt fra fjorden.');
    const refused = await postForm(app, memberBrowser, `/studio/publikasjoner/${pub}/innstillinger`, { title: 'Kapret', language: 'nb', about: '' });
    expect(refused.status).toBe(403);
    const res = await postForm(app, editor, `/studio/publikasjoner/${pub}/innstillinger`, { title: 'Fjordposten i dag', language: 'nb', about: 'Alt om fjorden.' });
    expect(res.status).toBe(303);
    const about = await request(app).get('/pub/fjordposten/om');
    expect(about.text).toContain('Alt om fjorden.');
    expect(about.text).toContain('lang="nb"');
    expect((await get(app, editor, '/studio/publikasjoner')).text).toContain('Fjordposten i dag');
  });
});

describe('articles from the console', () => {
  let article: string;

  it('"Forhåndsvis" renders the Markdown as the public pages do and saves nothing', async () => {
    const before = await nodeCount();
    const res = await postForm(app, editor, `/studio/publikasjoner/${pub}/artikler`, { collection_id: pub, title: 'Brua åpner', content: 'Endelig **åpen**.\n\n## Trafikk\n\n<script>x</script>', handling: 'forhandsvis' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Forhåndsvisning (ikke lagret)');
    expect(res.text).toContain('<strong>åpen</strong>');
    expect(res.text).not.toContain('<script>x</script>');
    expect(res.text).toContain('>Endelig **åpen**.');
    expect(await nodeCount()).toBe(before);
  });

  it('"Lagre" makes a content node in the chosen collection (create_node); an empty title is named on the form', async () => {
    const empty = await postForm(app, editor, `/studio/publikasjoner/${pub}/artikler`, { collection_id: pub, title: ' ', content: 'Tekst', handling: 'lagre' });
    expect(empty.status).toBe(400);
    expect(empty.text).toContain('«Tittel» må fylles ut.');
    const res = await postForm(app, editor, `/studio/publikasjoner/${pub}/artikler`, { collection_id: pub, title: 'Brua åpner', content: 'Endelig **åpen**.', handling: 'lagre' });
    expect(res.status).toBe(303);
    article = /artikler\/([0-9a-f-]{36})\?ok=lagret/.exec(res.headers.location!)![1]!;
    const { rows } = await ctx.database.pool.query(`select n.node_kind, n.content, e.target_id from nodes n join edges e on e.source_id = n.id and e.edge_type = 'belongs_to' where n.id = $1`, [article]);
    expect(rows).toEqual([{ node_kind: 'content', content: 'Endelig **åpen**.', target_id: pub }]);
    const page = await get(app, editor, res.headers.location!);
    expect(page.text).toContain('Artikkelen er lagret.');
    expect(page.text).toContain('Ikke publisert i Fjordposten i dag.');
  });

  it('the picker finds the article by a word of its title and publishes it; publishing it twice is told on the picker', async () => {
    const found = await get(app, editor, `/studio/publikasjoner/${pub}/velg?q=brua`);
    expect(found.status).toBe(200);
    expect(found.text).toContain('Treff for «brua»');
    expect(found.text).toContain(`<input type="hidden" name="node_id" value="${article}"><button type="submit">Publiser<span class="vh"> «Brua åpner»</span></button>`);
    expect((await get(app, editor, `/studio/publikasjoner/${pub}/velg`)).text).toContain('Dine nyeste noder');
    expect((await get(app, memberBrowser, `/studio/publikasjoner/${pub}/velg?q=brua`)).text).toContain('Brua åpner');
    expect((await postForm(app, editor, `/studio/publikasjoner/${pub}/publiser`, { node_id: article, q: 'brua' })).status).toBe(303);
    expect((await request(app).get(`/pub/fjordposten/artikkel/${article}`)).text).toContain('<strong>åpen</strong>');
    const twice = await postForm(app, editor, `/studio/publikasjoner/${pub}/publiser`, { node_id: article, q: 'brua' });
    expect(twice.status).toBe(409);
    expect(twice.text).toContain('artikkelen er allerede publisert');
    expect(twice.text).toContain('Treff for «brua»');
  });

  it('edits the published article (update_node); a member of its collection may not change a published node (403)', async () => {
    const edit = await get(app, editor, `/studio/publikasjoner/${pub}/artikler/${article}`);
    expect(edit.text).toContain('Artikkelen er publisert i Fjordposten i dag.');
    expect(edit.text).toContain('>Endelig **åpen**.</textarea>');
    const refused = await postForm(app, memberBrowser, `/studio/publikasjoner/${pub}/artikler/${article}`, { title: 'Kapret', content: 'Kapret', handling: 'lagre' });
    expect(refused.status).toBe(403);
    const res = await postForm(app, editor, `/studio/publikasjoner/${pub}/artikler/${article}`, { title: 'Brua er åpen', content: 'Nå er den *åpen*.', handling: 'lagre' });
    expect(res.status).toBe(303);
    const publicPage = (await request(app).get(`/pub/fjordposten/artikkel/${article}`)).text;
    expect(publicPage).toContain('Brua er åpen');
    expect(publicPage).toContain('<em>åpen</em>');
  });

  it('update_node through the API: a member edits an unpublished node of their collection; a collection is changed by its own operations (400)', async () => {
    const draft = (await request(app).post('/intentions/create_node').set('Authorization', `Bearer ${await ctx.tokenFor('redaktor')}`).send({ node_kind: 'content', title: 'Utkast', collection_id: pub }).expect(201)).body.id;
    await request(app).post('/intentions/update_node').set('Authorization', member.authorization).send({ node_id: draft, content: 'Medlemmets tekst' }).expect(200);
    expect((await ctx.database.pool.query(`select title, content from nodes where id = $1`, [draft])).rows[0]).toEqual({ title: 'Utkast', content: 'Medlemmets tekst' });
    const collection = await request(app).post('/intentions/update_node').set('Authorization', `Bearer ${await ctx.tokenFor('redaktor')}`).send({ node_id: pub, title: 'x' });
    expect(collection.status).toBe(400);
  });
});

describe('variants from the console', () => {
  let article: string;
  let variants: string[];

  beforeAll(async () => {
    const auth = `Bearer ${await ctx.tokenFor('redaktor')}`;
    article = (await request(app).post('/intentions/create_node').set('Authorization', auth).send({ node_kind: 'content', title: 'Ferja går', content: 'Tekst.', collection_id: pub })).body.id;
    await request(app).post('/intentions/publish_article').set('Authorization', auth).send({ publication_id: pub, node_id: article }).expect(201);
    variants = [];
    for (const title of ['Ferja går igjen', 'Endelig ferje']) {
      variants.push((await request(app).post('/intentions/create_variant').set('Authorization', auth).send({ publication_id: pub, article_id: article, variant_type: 'headline', title })).body.edge_id);
    }
  });

  it('"Varianttype" is a select with explained choices, and every Avpubliser button names its article', async () => {
    const page = (await get(app, editor, `/studio/publikasjoner/${pub}`)).text;
    expect(page).toContain(`<select id="variant_type-${article}" name="variant_type" aria-describedby`);
    expect(page).toContain('<option value="headline" selected>Tittel (headline): varianter med ulike titler</option>');
    expect(page).toContain('<option value="teaser">Ingress (teaser): varianter med ulike ingresser</option>');
    expect(page).toContain('Avpubliser<span class="vh"> «Ferja går»</span>');
    expect(page).toContain('Avpubliser<span class="vh"> «Brua er åpen»</span>');
  });

  it('edits a variant in a running test (update_variant): the title changes and the test starts a new round', async () => {
    const rounds = async () => Number((await ctx.database.pool.query(`select round from ab_tests where article_id = $1`, [article])).rows[0].round);
    const before = await rounds();
    const bad = await postForm(app, editor, `/studio/publikasjoner/${pub}/varianter/${variants[0]}`, { title: '', teaser: '' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain(`<a href="#vt-${variants[0]}">«Tittel» må fylles ut.</a>`);
    const refused = await postForm(app, memberBrowser, `/studio/publikasjoner/${pub}/varianter/${variants[0]}`, { title: 'Kapret', teaser: '' });
    expect(refused.status).toBe(403);
    const res = await postForm(app, editor, `/studio/publikasjoner/${pub}/varianter/${variants[0]}`, { title: 'Ferja går igjen i dag', teaser: 'Fra klokka seks.' });
    expect(res.headers.location).toContain('ok=variant-ny-runde');
    expect(await rounds()).toBe(before + 1);
    const { rows } = await ctx.database.pool.query(`select metadata ->> 'title' as title, metadata ->> 'teaser' as teaser from edges where id = $1`, [variants[0]]);
    expect(rows[0]).toEqual({ title: 'Ferja går igjen i dag', teaser: 'Fra klokka seks.' });
  });

  it('removes a variant (remove_variant): the one left stands alone, no longer tested', async () => {
    expect((await postForm(app, memberBrowser, `/studio/publikasjoner/${pub}/varianter/${variants[1]}/fjern`, {})).status).toBe(403);
    const res = await postForm(app, editor, `/studio/publikasjoner/${pub}/varianter/${variants[1]}/fjern`, {});
    expect(res.headers.location).toContain('ok=variant-fjernet');
    const { rows } = await ctx.database.pool.query(`select id, metadata -> 'ab_status' as status from edges where edge_type = 'front_page_variant' and target_id = $1`, [article]);
    expect(rows).toEqual([{ id: variants[0], status: null }]);
    expect((await get(app, editor, `/studio/publikasjoner/${pub}`)).text).not.toContain('Endelig ferje');
  });
});
