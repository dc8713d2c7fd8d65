import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sql } from 'kysely';
import { app, ctx, node, owner, post, publication, publish, setupPublishingScene, slugs, sysadmin } from '../__tests__/publishing-scene.js';

// Making a publication and publishing articles in it, through the intentions.

setupPublishingScene();

describe('POST /intentions/create_publication', () => {
  it('creates a collection with metadata.publication that the caller owns', async () => {
    const { id, slug } = await publication({ domains: ['Nyheter.Example.no'] });
    // Created by the system administrator (domains need one).
    const row = await ctx.database.db.selectFrom('nodes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.node_kind).toBe('collection');
    expect(row.metadata).toEqual({ publication: { slug, title: `Bladet ${slugs}`, about: 'Om bladet.\n\nAndre avsnitt.', domains: ['nyheter.example.no'], language: 'nb' } });
    const ownerEdge = await ctx.database.db.selectFrom('edges').select('source_id').where('target_id', '=', id).where('edge_type', '=', 'owner').executeTakeFirst();
    expect(ownerEdge?.source_id).toBe(sysadmin.id);
  });

  it('a slug or a domain already in use is 409, and nothing is written', async () => {
    const first = await publication({ domains: ['opptatt.example.no'] });
    const before = await ctx.database.db.selectFrom('nodes').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
    const sameSlug = await post('/intentions/create_publication', owner, { title: 'Kopi', slug: first.slug });
    expect(sameSlug.status).toBe(409);
    expect(sameSlug.body.error).toBe('Konflikt: slug er allerede i bruk');
    const sameDomain = await post('/intentions/create_publication', sysadmin.authorization, { title: 'Kopi', slug: 'ny-slug-x', domains: ['OPPTATT.example.no'] });
    expect(sameDomain.status).toBe(409);
    expect(sameDomain.body.error).toBe('Konflikt: domenet er allerede i bruk');
    const after = await ctx.database.db.selectFrom('nodes').select(sql<number>`count(*)::int`.as('n')).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });

  it('a bad slug or domain is 400 naming the field', async () => {
    const badSlug = await post('/intentions/create_publication', owner, { title: 'X', slug: 'Store Bokstaver' });
    expect(badSlug.status).toBe(400);
    expect(badSlug.body.error).toMatch(/^Ugyldig forespørsel: slug: /);
    const badDomain = await post('/intentions/create_publication', sysadmin.authorization, { title: 'X', slug: 'ok-slug', domains: ['localhost'] });
    expect(badDomain.status).toBe(400);
    expect(badDomain.body.error).toMatch(/^Ugyldig forespørsel: domains: /);
  });
});

describe('POST /intentions/publish_article and unpublish_article', () => {
  it('needs admin on the publication: a member gets 403, a stranger 404', async () => {
    const pub = await publication();
    const member = await ctx.addPerson('pub-member');
    await post('/intentions/grant_access', owner, { subject_id: member.id, object_id: pub.id, access: 'member' });
    const theirs = (await post('/intentions/create_node', member.authorization, { node_kind: 'content', title: 'Mitt' })).body.id;
    expect((await post('/intentions/publish_article', member.authorization, { publication_id: pub.id, node_id: theirs })).status).toBe(403);
    const stranger = await ctx.addPerson('pub-stranger');
    const strangers = (await post('/intentions/create_node', stranger.authorization, { node_kind: 'content', title: 'Fremmed' })).body.id;
    const res = await post('/intentions/publish_article', stranger.authorization, { publication_id: pub.id, node_id: strangers });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Finnes ikke: publication_id');
  });

  it('needs admin on the article: hidden from the caller is 404, a discoverable or readable node of someone else 403 (issue 22)', async () => {
    const pub = await publication();
    const other = await ctx.addPerson('pub-author');
    const hidden = (await post('/intentions/create_node', other.authorization, { node_kind: 'content', title: 'Skjult' })).body.id;
    const discoverable = (await post('/intentions/create_node', other.authorization, { node_kind: 'content', title: 'Synlig', visibility: 'discoverable' })).body.id;
    const readable = (await post('/intentions/create_node', other.authorization, { node_kind: 'content', title: 'Lesbar', visibility: 'readable' })).body.id;
    expect((await post('/intentions/publish_article', owner, { publication_id: pub.id, node_id: hidden })).status).toBe(404);
    expect((await post('/intentions/publish_article', owner, { publication_id: pub.id, node_id: discoverable })).status).toBe(403);
    expect((await post('/intentions/publish_article', owner, { publication_id: pub.id, node_id: readable })).status).toBe(403);
  });

  it('publishes once (a second time is 409) with a published_in edge article → publication; unpublish removes it', async () => {
    const pub = await publication();
    const id = await node('Én gang');
    const edgeId = await publish(pub.id, id);
    const edge = await ctx.database.db.selectFrom('edges').selectAll().where('id', '=', edgeId).executeTakeFirstOrThrow();
    expect(edge).toMatchObject({ source_id: id, target_id: pub.id, edge_type: 'published_in' });
    expect((await post('/intentions/publish_article', owner, { publication_id: pub.id, node_id: id })).status).toBe(409);
    expect((await request(app).get(`/pub/${pub.slug}/artikkel/${id}`)).status).toBe(200);
    const un = await post('/intentions/unpublish_article', owner, { edge_id: edgeId });
    expect(un.status).toBe(200);
    expect((await request(app).get(`/pub/${pub.slug}/artikkel/${id}`)).status).toBe(404);
  });

  it('a publishing edge cannot be made or removed through the generic edge operations', async () => {
    const pub = await publication();
    const id = await node('Snarvei');
    const made = await post('/intentions/create_edge', owner, { source_id: id, target_id: pub.id, edge_type: 'published_in' });
    expect(made.status).toBe(400);
    const edgeId = await publish(pub.id, id);
    const removed = await post('/intentions/delete_edge', owner, { edge_id: edgeId });
    expect(removed.status).toBe(400);
    expect(await ctx.database.db.selectFrom('edges').select('id').where('id', '=', edgeId).executeTakeFirst()).toBeDefined();
  });
});
