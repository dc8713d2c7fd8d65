import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { sql } from 'kysely';
import { hourOfWeek } from '@inntak/ab-testing';
import { abEvents, app, article, ctx, edgeMetadata, node, owner, post, publication, recorder, setupPublishingScene } from '../__tests__/publishing-scene.js';

// Front-page variants and their A/B tests: impressions, clicks and overrides.

setupPublishingScene();

describe('front-page variants and A/B tests', () => {
  async function variant(pub: string, articleId: string, title: string, variantType = 'headline') {
    return post('/intentions/create_variant', owner, { publication_id: pub, article_id: articleId, variant_type: variantType, title });
  }

  it('a lone variant has no status; a second of the same type puts both in testing', async () => {
    const pub = await publication();
    const id = await article(pub.id, 'Testsak');
    const one = await variant(pub.id, id, 'Tittel A');
    expect(one.status).toBe(201);
    expect(one.body.ab_status).toBeNull();
    const two = await variant(pub.id, id, 'Tittel B');
    expect(two.body.ab_status).toBe('testing');
    expect(await edgeMetadata(one.body.edge_id)).toMatchObject({ variant_type: 'headline', title: 'Tittel A', ab_status: 'testing', impressions: 0, clicks: 0, ctr: 0 });
    const teaser = await variant(pub.id, id, 'Ingress', 'teaser');
    expect(teaser.body.ab_status).toBeNull();
    const edge = await ctx.database.db.selectFrom('edges').selectAll().where('id', '=', one.body.edge_id).executeTakeFirstOrThrow();
    expect(edge).toMatchObject({ source_id: pub.id, target_id: id, edge_type: 'front_page_variant' });
  });

  it('a variant needs the article published in the publication (409)', async () => {
    const pub = await publication();
    const id = await node('Upublisert');
    const res = await variant(pub.id, id, 'X');
    expect(res.status).toBe(409);
  });

  it('each front-page render shows a testing variant; each reader’s first render records one impression for it', async () => {
    const pub = await publication();
    const id = await article(pub.id, 'Egen tittel');
    const a = (await variant(pub.id, id, 'Variant Alfa')).body.edge_id;
    const b = (await variant(pub.id, id, 'Variant Beta')).body.edge_id;
    const shown = { a: 0, b: 0 };
    for (let i = 0; i < 40; i++) {
      const res = await request(app).get(`/pub/${pub.slug}`).set('User-Agent', `leser-${i}`);
      expect(res.text).not.toContain('>Egen tittel</a>');
      if (res.text.includes(`?v=${a}`)) shown.a += 1;
      if (res.text.includes(`?v=${b}`)) shown.b += 1;
    }
    expect(shown.a + shown.b).toBe(40);
    expect(shown.a).toBeGreaterThan(0);
    expect(shown.b).toBeGreaterThan(0);
    await recorder.flush();
    expect(await abEvents(a)).toEqual({ impressions: shown.a, clicks: 0 });
    expect(await abEvents(b)).toEqual({ impressions: shown.b, clicks: 0 });
    const { rows } = await sql<{ hour_of_week: number }>`select distinct hour_of_week from ab_events where variant_edge_id = ${a}`.execute(ctx.database.db);
    expect(rows.map((r) => r.hour_of_week)).toEqual([hourOfWeek(new Date())]);
  });

  it('/t records a click for the variant its reader was shown and redirects; an unknown or mismatched variant redirects and records nothing', async () => {
    const pub = await publication();
    const id = await article(pub.id, 'Klikksak');
    const other = await article(pub.id, 'Annen sak');
    const v = (await variant(pub.id, id, 'Klikk her')).body.edge_id;
    const otherVariant = (await variant(pub.id, other, 'Annen')).body.edge_id;
    const reader = (path: string) => request(app).get(path).set('User-Agent', 'klikker');
    // A click from a reader who was never shown the variant counts nothing (issue 22, finding 4).
    expect((await request(app).get(`/pub/${pub.slug}/t/${id}?v=${v}`).set('User-Agent', 'aldri-vist')).status).toBe(302);
    const page = (await reader(`/pub/${pub.slug}`)).text;
    // The link carries the reader's signed impression id (issue 24); the click follows it.
    const link = new RegExp(`href="(/pub/${pub.slug}/t/${id}\\?v=${v}&amp;i=[A-Za-z0-9_.-]+)"`).exec(page)![1]!.replaceAll('&amp;', '&');
    const click = await reader(link);
    expect(click.status).toBe(302);
    expect(click.headers.location).toBe(`/pub/${pub.slug}/artikkel/${id}`);
    for (const bad of [otherVariant, ctx.collectionId, 'tull']) {
      const res = await reader(link.replace(v, bad));
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe(`/pub/${pub.slug}/artikkel/${id}`);
    }
    await recorder.flush();
    expect(await abEvents(v)).toEqual({ impressions: 1, clicks: 1 });
    expect(await abEvents(otherVariant)).toEqual({ impressions: 1, clicks: 0 });
  });

  it('ab_override: owner or admin of the publication only (403 otherwise); the variant wins and the others retire', async () => {
    const pub = await publication();
    const id = await article(pub.id, 'Overstyrt');
    const a = (await variant(pub.id, id, 'A-tittel')).body.edge_id;
    const b = (await variant(pub.id, id, 'B-tittel')).body.edge_id;
    const c = (await variant(pub.id, id, 'C-tittel')).body.edge_id;
    const member = await ctx.addPerson('ab-member');
    await post('/intentions/grant_access', owner, { subject_id: member.id, object_id: pub.id, access: 'member' });
    const refused = await post('/intentions/ab_override', member.authorization, { edge_id: b });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('Ingen tilgang');
    expect((await edgeMetadata(b)).ab_status).toBe('testing');
    const stranger = await ctx.addPerson('ab-stranger');
    expect((await post('/intentions/ab_override', stranger.authorization, { edge_id: b })).status).toBe(404);
    const admin = await ctx.addPerson('ab-admin');
    await post('/intentions/grant_access', owner, { subject_id: admin.id, object_id: pub.id, access: 'admin' });
    const res = await post('/intentions/ab_override', admin.authorization, { edge_id: b });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ edge_id: b, ab_status: 'winner', retired: [a, c].sort() });
    expect((await edgeMetadata(a)).ab_status).toBe('retired');
    expect((await edgeMetadata(c)).ab_status).toBe('retired');
    // The winner is always shown from now on; retired ones never.
    for (let i = 0; i < 10; i++) {
      const page = await request(app).get(`/pub/${pub.slug}`);
      expect(page.text).toContain('B-tittel');
      expect(page.text).not.toContain('A-tittel');
      expect(page.text).not.toContain('C-tittel');
    }
    expect((await post('/intentions/ab_override', owner, { edge_id: a })).status).toBe(200);
    expect((await edgeMetadata(b)).ab_status).toBe('retired');
  });
});
