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

// An article's media on its published page (issue 25): audio, images and video shown, served to
// any browser under the publication, only for articles published there.

let ctx: TestContext;
let app: Express;
let files: LocalFileStore;
let owner: string;
const FILE = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);

beforeAll(async () => {
  ctx = await setupTestContext();
  files = new LocalFileStore(await mkdtemp(join(tmpdir(), 'inntak-pub-media-')));
  app = ctx.app({ files });
  owner = await ctx.ownerAuthorization();
});
afterAll(() => ctx.close());

const post = (path: string, body: object) => request(app).post(path).set('Authorization', owner).send(body);

async function content(title: string): Promise<string> {
  return (await post('/intentions/create_node', { node_kind: 'content', title, content: `Om ${title}.` }).expect(201)).body.id;
}

async function stored(ownerId: string, mime: string, title: string, lastAccessed = new Date().toISOString()): Promise<string> {
  const id = uuidv7();
  const key = fileKeyOf(id, mime);
  await files.commit(await files.writeTemp(key, FILE), key);
  const metadata: MediaMetadata = { media_type: mime.split('/')[0] as MediaMetadata['media_type'], mime, bytes: FILE.length, generated: true, regenerable: true, last_accessed_at: lastAccessed };
  await createMediaNode(ctx.database.db, { id, ownerId, title, metadata });
  return id;
}

describe('media on published pages', () => {
  it('an article with has_media shows <audio controls> and <img alt>, through URLs a browser can fetch without a login', async () => {
    const pub = (await post('/intentions/create_publication', { title: 'Lydavisa', slug: 'lydavisa' }).expect(201)).body.id;
    const article = await content('Brua');
    await post('/intentions/publish_article', { publication_id: pub, node_id: article }).expect(201);
    const audio = await stored(article, 'audio/wav', 'Opplesning', '2026-01-01T00:00:00.000Z');
    const image = await stored(article, 'image/png', 'Brua i solnedgang');
    const page = await request(app).get(`/pub/lydavisa/artikkel/${article}`);
    expect(page.text).toContain(`<audio controls preload="metadata" src="/pub/lydavisa/medier/${audio}"></audio>`);
    expect(page.text).toContain(`<img src="/pub/lydavisa/medier/${image}" alt="Brua i solnedgang" loading="lazy">`);

    const whole = await request(app).get(`/pub/lydavisa/medier/${audio}`).buffer(true);
    expect(whole.status).toBe(200);
    expect(whole.headers['content-type']).toBe('audio/wav');
    expect(whole.headers['content-length']).toBe('1000');
    expect(whole.headers.etag).toBe(`"${audio}-1000"`);
    const part = await request(app).get(`/pub/lydavisa/medier/${audio}`).set('Range', 'bytes=10-19').buffer(true);
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 10-19/1000');
    expect((await request(app).get(`/pub/lydavisa/medier/${audio}`).set('If-None-Match', whole.headers.etag!)).status).toBe(304);
    expect((await request(app).get(`/pub/lydavisa/medier/${audio}`).set('Range', 'bytes=5000-')).status).toBe(416);

    // Reading counts as access for pruning.
    const row = await ctx.database.db.selectFrom('nodes').select('metadata').where('id', '=', audio).executeTakeFirstOrThrow();
    expect(Date.parse(String((row.metadata as MediaMetadata).last_accessed_at))).toBeGreaterThan(Date.parse('2026-01-02T00:00:00Z'));
  });

  it('media of an article that is not published here is 404, like any other id', async () => {
    await post('/intentions/create_publication', { title: 'Tom', slug: 'tom-avis' }).expect(201);
    const unpublished = await content('Utkast');
    const audio = await stored(unpublished, 'audio/wav', 'Hemmelig');
    expect((await request(app).get(`/pub/tom-avis/medier/${audio}`)).status).toBe(404);
    expect((await request(app).get(`/pub/tom-avis/medier/${uuidv7()}`)).status).toBe(404);
    // The authenticated route still needs a caller.
    expect((await request(app).get(`/media/${audio}`)).status).toBe(401);
  });
});
