import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import type { Express } from 'express';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { get, logIn, postForm, studioApp, type Browser } from '../__tests__/studio-scene.js';
import { createPerson } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

// Collections and their members in the console (issue 39): every change through create_collection,
// grant_access and revoke_access, with their rules (the last owner stays; owner takes owner).
let ctx: TestContext;
let app: Express;
let owner: Browser;
let newcomer: { id: string };
let colleague: { id: string };
let stranger: Browser;

const levelOf = async (subject: string, object: string) =>
  (await ctx.database.pool.query<{ access: string }>(`select access::text from node_access where subject_id = $1 and object_id = $2`, [subject, object])).rows[0]?.access ?? null;

beforeAll(async () => {
  ctx = await setupTestContext();
  app = studioApp(ctx);
  // A person nobody shares anything with, found only by their exact login subject.
  newcomer = await createPerson(storesOn(ctx.database.db).graph, { subject: 'ny-kollega-sub', name: 'Nora Nykommer' });
  // A person who shares the owner's collection already: found by a part of the name.
  colleague = await createPerson(storesOn(ctx.database.db).graph, { subject: 'kollega-sub', name: 'Kari Kollega' });
  const granted = await request(app).post('/intentions/grant_access').set('Authorization', await ctx.ownerAuthorization()).send({ subject_id: colleague.id, object_id: ctx.collectionId, access: 'member' });
  expect(granted.status).toBe(200);
  await ctx.addPerson('fremmed');
  owner = await logIn(app, 'owner-subject');
  stranger = await logIn(app, 'fremmed');
});
afterAll(() => ctx.close());

describe('collections in the console', () => {
  it('creates a collection owned by the caller and lists it with their level', async () => {
    const refused = await postForm(app, owner, '/studio/samlinger', { title: '  ', visibility: 'hidden' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('«Navn» må fylles ut.');
    const made = await postForm(app, owner, '/studio/samlinger', { title: 'Redaksjonen', visibility: 'hidden' });
    expect(made.status).toBe(303);
    const id = /\/studio\/samlinger\/([0-9a-f-]{36})\?ok=opprettet/.exec(made.headers.location!)![1]!;
    const list = await get(app, owner, '/studio/samlinger');
    expect(list.text).toContain(`<a href="/studio/samlinger/${id}">Redaksjonen</a> (eier)`);
    expect((await get(app, stranger, '/studio/samlinger')).text).not.toContain('Redaksjonen');
    expect((await get(app, stranger, `/studio/samlinger/${id}`)).status).toBe(404);
  });

  it('finds people by name among those the caller shares a collection with, and anyone by exact subject', async () => {
    const byName = await get(app, owner, `/studio/samlinger/${ctx.collectionId}?finn=kari`);
    expect(byName.text).toContain(`<option value="${colleague.id}">Kari Kollega (kollega-sub)</option>`);
    const hidden = await get(app, owner, `/studio/samlinger/${ctx.collectionId}?finn=Nora`);
    expect(hidden.text).toContain('Ingen personer funnet for «Nora»');
    const bySubject = await get(app, owner, `/studio/samlinger/${ctx.collectionId}?finn=ny-kollega-sub`);
    expect(bySubject.text).toContain(`<option value="${newcomer.id}">Nora Nykommer (ny-kollega-sub)</option>`);
    // A stranger with no level on the collection sees neither the page nor its people.
    expect((await get(app, stranger, `/studio/samlinger/${ctx.collectionId}?finn=kari`)).status).toBe(404);
  });

  it('grants, changes and revokes a level through grant_access and revoke_access', async () => {
    const granted = await postForm(app, owner, `/studio/samlinger/${ctx.collectionId}/tilgang`, { skjema: 'ny', subject_id: newcomer.id, access: 'member' });
    expect(granted.status).toBe(303);
    expect(await levelOf(newcomer.id, ctx.collectionId)).toBe('member');
    const page = await get(app, owner, `/studio/samlinger/${ctx.collectionId}`);
    expect(page.text).toContain('<th scope="row">Nora Nykommer (ny-kollega-sub)</th><td>medlem</td>');
    expect((await postForm(app, owner, `/studio/samlinger/${ctx.collectionId}/tilgang`, { skjema: 'medlem', subject_id: newcomer.id, access: 'admin' })).status).toBe(303);
    expect(await levelOf(newcomer.id, ctx.collectionId)).toBe('admin');
    expect((await postForm(app, owner, `/studio/samlinger/${ctx.collectionId}/fjern`, { skjema: 'medlem', subject_id: newcomer.id })).status).toBe(303);
    expect(await levelOf(newcomer.id, ctx.collectionId)).toBeNull();
  });

  it('keeps the last owner, telling so on the page, and changes nothing', async () => {
    const refused = await postForm(app, owner, `/studio/samlinger/${ctx.collectionId}/fjern`, { skjema: 'medlem', subject_id: ctx.ownerId });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('den siste eieren kan ikke fjernes');
    expect(await levelOf(ctx.ownerId, ctx.collectionId)).toBe('owner');
    const demoted = await postForm(app, owner, `/studio/samlinger/${ctx.collectionId}/tilgang`, { skjema: 'medlem', subject_id: ctx.ownerId, access: 'member' });
    expect(demoted.status).toBe(409);
    expect(await levelOf(ctx.ownerId, ctx.collectionId)).toBe('owner');
  });

  it('lets an admin grant below owner but not owner, nor raise themselves (the write policy decides)', async () => {
    await postForm(app, owner, `/studio/samlinger/${ctx.collectionId}/tilgang`, { subject_id: colleague.id, access: 'admin' });
    const admin = await logIn(app, 'kollega-sub');
    expect((await postForm(app, admin, `/studio/samlinger/${ctx.collectionId}/tilgang`, { subject_id: newcomer.id, access: 'reader' })).status).toBe(303);
    expect(await levelOf(newcomer.id, ctx.collectionId)).toBe('reader');
    expect((await postForm(app, admin, `/studio/samlinger/${ctx.collectionId}/tilgang`, { subject_id: newcomer.id, access: 'owner' })).status).toBe(403);
    expect((await postForm(app, admin, `/studio/samlinger/${ctx.collectionId}/tilgang`, { subject_id: colleague.id, access: 'owner' })).status).toBe(403);
    expect(await levelOf(colleague.id, ctx.collectionId)).toBe('admin');
    // A member sees their level and no member list.
    await postForm(app, owner, `/studio/samlinger/${ctx.collectionId}/tilgang`, { subject_id: colleague.id, access: 'member' });
    const page = await get(app, admin, `/studio/samlinger/${ctx.collectionId}`);
    expect(page.text).toContain('Ditt nivå: medlem.');
    expect(page.text).toContain('Medlemslisten vises for samlingens administratorer.');
    expect((await postForm(app, admin, `/studio/samlinger/${ctx.collectionId}/tilgang`, { subject_id: newcomer.id, access: 'member' })).status).toBe(403);
  });

  it('names a bad field in plain Norwegian and keeps the search', async () => {
    const res = await postForm(app, owner, `/studio/samlinger/${ctx.collectionId}/tilgang`, { skjema: 'ny', finn: 'kari', subject_id: 'ikke-en-id', access: 'member' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('«Person» må være en id (UUID) – velg fra listen.');
    expect(res.text).toContain('value="kari"');
  });
});
