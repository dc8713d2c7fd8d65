import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';

// update_publication, update_variant and remove_variant through the API (issue 39): the write
// policy's rows decide, a bad body changes nothing.

let ctx: TestContext;
let app: Express;
let owner: string;
let member: { id: string; authorization: string };
let pub: string;
let article: string;

async function post(path: string, body: object, authorization = owner) {
  return request(app).post(path).set('Authorization', authorization).send(body);
}
const variantRows = async () =>
  (await ctx.database.pool.query(`select id, metadata ->> 'title' as title, metadata ->> 'teaser' as teaser, metadata ->> 'ab_status' as status from edges where edge_type = 'front_page_variant' and target_id = $1 order by id`, [article])).rows;

beforeAll(async () => {
  ctx = await setupTestContext();
  app = ctx.app();
  owner = await ctx.ownerAuthorization();
  member = await ctx.addPerson('medlem');
  pub = (await post('/intentions/create_publication', { title: 'Fjordposten', slug: 'fjordposten', about: 'Om.' })).body.id;
  await post('/intentions/grant_access', { subject_id: member.id, object_id: pub, access: 'member' });
  article = (await post('/intentions/create_node', { node_kind: 'content', title: 'Brua', content: 'Tekst.' })).body.id;
  await post('/intentions/publish_article', { publication_id: pub, node_id: article });
});
afterAll(() => ctx.close());

describe('update_publication', () => {
  it("changes title, about and language; the slug stays; a member gets 403; an empty body is 400", async () => {
    expect((await post('/intentions/update_publication', { publication_id: pub, title: 'Kapret' }, member.authorization)).status).toBe(403);
    expect((await post('/intentions/update_publication', { publication_id: pub })).status).toBe(400);
    expect((await post('/intentions/update_publication', { publication_id: pub, slug: 'ny' })).status).toBe(400);
    expect((await post('/intentions/update_publication', { publication_id: pub, title: 'Fjordposten i dag', language: 'en' })).body).toEqual({ id: pub });
    const { rows } = await ctx.database.pool.query(`select title, metadata -> 'publication' as p from nodes where id = $1`, [pub]);
    expect(rows[0]).toEqual({ title: 'Fjordposten i dag', p: expect.objectContaining({ title: 'Fjordposten i dag', slug: 'fjordposten', about: 'Om.', language: 'en' }) });
  });

  it('refuses a collection that is not a publication (400)', async () => {
    expect((await post('/intentions/update_publication', { publication_id: ctx.collectionId, title: 'x' })).status).toBe(400);
  });
});

describe('update_variant and remove_variant', () => {
  let lone: string;

  it('a lone variant changes without a new round; an empty teaser removes it', async () => {
    lone = (await post('/intentions/create_variant', { publication_id: pub, article_id: article, variant_type: 'teaser', title: 'Brua', teaser: 'Gammel' })).body.edge_id;
    expect((await post('/intentions/update_variant', { edge_id: lone, title: 'Brua' }, member.authorization)).status).toBe(403);
    expect((await post('/intentions/update_variant', { edge_id: lone, teaser: '' })).body).toEqual({ edge_id: lone, new_round: false });
    expect((await variantRows()).find((r) => r.id === lone)).toEqual({ id: lone, title: 'Brua', teaser: null, status: null });
    expect((await post('/intentions/update_variant', { edge_id: lone, title: '' })).status).toBe(400);
  });

  it('removing the winner of a decided test leaves the retired one retired; a member may not remove (403)', async () => {
    const a = (await post('/intentions/create_variant', { publication_id: pub, article_id: article, variant_type: 'headline', title: 'A' })).body.edge_id;
    const b = (await post('/intentions/create_variant', { publication_id: pub, article_id: article, variant_type: 'headline', title: 'B' })).body.edge_id;
    await post('/intentions/ab_override', { edge_id: b });
    expect((await post('/intentions/remove_variant', { edge_id: b }, member.authorization)).status).toBe(403);
    expect((await post('/intentions/remove_variant', { edge_id: b })).body).toEqual({ edge_id: b });
    const rows = await variantRows();
    expect(rows.find((r) => r.id === a)?.status).toBe('retired');
    expect(rows.some((r) => r.id === b)).toBe(false);
    expect((await post('/intentions/remove_variant', { edge_id: b })).status).toBe(404);
  });
});
