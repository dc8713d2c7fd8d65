import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { uuidv7 } from '@inntak/core';
import { LocalFileStore } from '@inntak/files';
import { fileKeyOf, type MediaMetadata } from '@inntak/media';
import { createMediaNode } from '@inntak/postgres/media';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';

// Issue 35, finding 1 (docs/security.md, "Fifth attack"): a member of a hidden collection drew
// has_media from their own published node to the collection's media; the public pages served the
// file to anyone and showed its title, also after the member was revoked, and the owner could
// neither see nor delete the edge (it starts at a node hidden from them).

let ctx: TestContext;
let app: Express;
let files: LocalFileStore;
let owner: string;
const FILE = Uint8Array.from({ length: 100 }, (_, i) => i);

beforeAll(async () => {
  ctx = await setupTestContext();
  files = new LocalFileStore(await mkdtemp(join(tmpdir(), 'inntak-pub-media-sec-')));
  app = ctx.app({ files });
  owner = await ctx.ownerAuthorization();
});
afterAll(() => ctx.close());

const post = (path: string, authorization: string, body: object) => request(app).post(path).set('Authorization', authorization).send(body);

/** The owner's hidden collection with an uploaded image in it (an upload's media belongs to its collection), and a person granted `access` on it. */
async function hiddenCollectionWithMedia(subject: string, access: 'member' | 'admin') {
  const collection = (await post('/intentions/create_collection', owner, { title: `Skjult ${subject}` }).expect(201)).body.id as string;
  const media = uuidv7();
  const key = fileKeyOf(media, 'image/png');
  await files.commit(await files.writeTemp(key, FILE), key);
  const metadata: MediaMetadata = { media_type: 'image', mime: 'image/png', bytes: FILE.length, generated: false, regenerable: false, last_accessed_at: new Date().toISOString() };
  await createMediaNode(ctx.database.db, { id: media, ownerId: collection, title: 'Styrets hemmelige plan', metadata });
  const person = await ctx.addPerson(subject);
  await post('/intentions/grant_access', owner, { subject_id: person.id, object_id: collection, access }).expect(200);
  return { collection, media, person };
}

/** The person's own publication and node; published first when `publishFirst`. */
async function ownPublishedNode(authorization: string, slug: string, publishFirst: boolean, drawTo?: string) {
  const publication = (await post('/intentions/create_publication', authorization, { title: slug, slug }).expect(201)).body.id as string;
  const node = (await post('/intentions/create_node', authorization, { node_kind: 'content', title: `Artikkel i ${slug}`, content: 'Se bildet.' }).expect(201)).body.id as string;
  const publish = () => post('/intentions/publish_article', authorization, { publication_id: publication, node_id: node }).expect(201);
  if (publishFirst) await publish();
  const drawn = drawTo ? await post('/intentions/create_edge', authorization, { source_id: node, target_id: drawTo, edge_type: 'has_media' }) : undefined;
  if (!publishFirst) await publish();
  return { node, drawn };
}

const mediaPath = (slug: string, media: string) => `/pub/${slug}/medier/${media}`;

describe('media of a collection on a public page (issue 35, finding 1)', () => {
  it('a member of a hidden collection cannot draw has_media from their published node to its media: 403, and the file stays 404 on their page', async () => {
    const { media, person } = await hiddenCollectionWithMedia('medlem-a', 'member');
    const { node, drawn } = await ownPublishedNode(person.authorization, 'medlemmets-avis', true, media);
    expect(drawn!.status).toBe(403);
    expect(drawn!.body.error).toBe('Ingen tilgang: target_id: fra en publisert node krever has_media admin på mediet og på alt det hører til');
    expect((await request(app).get(mediaPath('medlemmets-avis', media))).status).toBe(404);
    expect((await request(app).get(`/pub/medlemmets-avis/artikkel/${node}`)).text).not.toContain('Styrets hemmelige plan');
  });

  it('an edge a member drew before publishing does not count: the page neither serves the file nor shows its title', async () => {
    const { media, person } = await hiddenCollectionWithMedia('medlem-b', 'member');
    const { node, drawn } = await ownPublishedNode(person.authorization, 'for-publisering', false, media);
    expect(drawn!.status).toBe(201);
    expect((await request(app).get(mediaPath('for-publisering', media))).status).toBe(404);
    const page = await request(app).get(`/pub/for-publisering/artikkel/${node}`);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('Styrets hemmelige plan');
    expect(page.text).not.toContain(media);
  });

  it('an edge an admin of the collection drew counts while they are admin, and stops counting when the owner revokes them', async () => {
    const { collection, media, person } = await hiddenCollectionWithMedia('admin-c', 'admin');
    const { node, drawn } = await ownPublishedNode(person.authorization, 'adminens-avis', true, media);
    expect(drawn!.status).toBe(201);
    const served = await request(app).get(mediaPath('adminens-avis', media));
    expect(served.status).toBe(200);
    expect(served.headers['cache-control']).toBe('public, max-age=300');
    expect((await request(app).get(`/pub/adminens-avis/artikkel/${node}`)).text).toContain('Styrets hemmelige plan');

    await post('/intentions/revoke_access', owner, { subject_id: person.id, object_id: collection }).expect(200);
    expect((await request(app).get(mediaPath('adminens-avis', media))).status).toBe(404);
    expect((await request(app).get(`/pub/adminens-avis/artikkel/${node}`)).text).not.toContain('Styrets hemmelige plan');
  });
});
