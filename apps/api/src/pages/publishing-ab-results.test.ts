import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { recordAbCounts } from '@inntak/postgres/publishing';
import { app, article, ctx, owner, post, publication, setupPublishingScene } from '../__tests__/publishing-scene.js';

// The editor's view of A/B tests (issue 24, point 5) and who may end one by hand.

setupPublishingScene();

async function scene() {
  const pub = await publication();
  const id = await article(pub.id, 'Resultatsak');
  const variant = async (title: string) => (await post('/intentions/create_variant', owner, { publication_id: pub.id, article_id: id, variant_type: 'headline', title })).body.edge_id as string;
  const a = await variant('Alfa');
  const b = await variant('Beta');
  return { pub, id, a, b };
}

async function person(name: string, pub: string, access: 'reader' | 'member' | 'admin') {
  const who = await ctx.addPerson(`${name}-${Math.random().toString(36).slice(2, 8)}`);
  expect((await post('/intentions/grant_access', owner, { subject_id: who.id, object_id: pub, access })).status).toBe(200);
  return who;
}

const results = (pub: string, authorization: string) => request(app).get(`/publications/${pub}/ab_results`).set('Authorization', authorization);

describe('A/B results an editor can read', () => {
  it('GET /publications/{id}/ab_results: counts, CTR with interval, lift with interval, always-valid p, why undecided, history', async () => {
    const { pub, id, a, b } = await scene();
    await recordAbCounts(ctx.database.db, [
      { variant_edge_id: a, hour_of_week: 2, impressions: 1000, clicks: 60 },
      { variant_edge_id: b, hour_of_week: 2, impressions: 1000, clicks: 40 },
    ]);
    const res = await results(pub.id, owner);
    expect(res.status).toBe(200);
    expect(res.body.publication_id).toBe(pub.id);
    const [test] = res.body.tests;
    expect(test).toMatchObject({ article_id: id, article_title: 'Resultatsak', variant_type: 'headline', state: 'testing', round: 1 });
    expect(test.variants.find((v: { edge_id: string }) => v.edge_id === a)).toMatchObject({ title: 'Alfa', impressions: 1000, clicks: 60, ctr: { estimate: 0.06 } });
    const ab = test.comparisons.find((c: { variant: string; against: string }) => c.variant === a && c.against === b);
    // The z-test would call 60/1000 against 40/1000 significant (p = 0.040); the always-valid p does not.
    expect(ab.p_value).toBeCloseTo(0.5276128239287604, 8);
    expect(ab.difference.low).toBeLessThan(0);
    expect(ab.lift.estimate).toBeCloseTo(0.5, 10);
    expect(test.undecided.reason).toBe('not_significant');
    expect(test.undecided.explanation).toMatch(/alltid-gyldig p/);
    expect(test.history).toEqual([expect.objectContaining({ kind: 'round_started', round: 1, edge_id: b, decided_by: ctx.ownerId })]);
  });

  it('a member reads the results; a reader gets 403, a stranger 404; the route is in /openapi.json', async () => {
    const { pub } = await scene();
    expect((await results(pub.id, (await person('res-member', pub.id, 'member')).authorization)).status).toBe(200);
    const reader = await results(pub.id, (await person('res-reader', pub.id, 'reader')).authorization);
    expect(reader.status).toBe(403);
    expect(reader.body).toEqual({ error: 'Ingen tilgang' });
    expect((await results(pub.id, (await ctx.addPerson('res-stranger')).authorization)).status).toBe(404);
    expect((await request(app).get(`/publications/${pub.id}/ab_results`)).status).toBe(401);
    const openapi = await request(app).get('/openapi.json');
    expect(openapi.body.paths['/publications/{publication_id}/ab_results'].get).toBeDefined();
  });

  it('the override: allowed for owner and admin, refused for member and reader (403); the history says who', async () => {
    const { pub, a, b } = await scene();
    for (const access of ['member', 'reader'] as const) {
      const refused = await post('/intentions/ab_override', (await person(`ovr-${access}`, pub.id, access)).authorization, { edge_id: a });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ error: 'Ingen tilgang' });
    }
    const admin = await person('ovr-admin', pub.id, 'admin');
    expect((await post('/intentions/ab_override', admin.authorization, { edge_id: a })).status).toBe(200);
    expect((await post('/intentions/ab_override', owner, { edge_id: b })).status).toBe(200);
    const { tests } = (await results(pub.id, owner)).body;
    expect(tests[0].state).toBe('decided');
    expect(tests[0].history.map((h: { kind: string; edge_id: string; decided_by: string }) => [h.kind, h.edge_id, h.decided_by])).toEqual([
      ['override', b, ctx.ownerId],
      ['override', a, admin.id],
      ['round_started', b, ctx.ownerId],
    ]);
  });
});
