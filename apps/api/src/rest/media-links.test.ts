import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { uuidv7 } from '@inntak/core';
import { LocalFileStore } from '@inntak/files';
import { fileKeyOf, type MediaMetadata } from '@inntak/media';
import { sql } from 'kysely';
import { KEY_OVERLAP_HOURS, rotateServerSecret } from '@inntak/postgres/graph';
import { createMediaNode } from '@inntak/postgres/media';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { createNode } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

let ctx: TestContext;
let app: Express;
let files: LocalFileStore;
let reader: { id: string; authorization: string };
let stranger: { id: string; authorization: string };
let articleId: string;
/** The app's clock: tests move it past a link's expiry. */
let nowMs = Date.now();
const FILE = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);

beforeAll(async () => {
  ctx = await setupTestContext();
  files = new LocalFileStore(await mkdtemp(join(tmpdir(), 'inntak-api-media-links-')));
  app = ctx.app({ files, now: () => nowMs });
  const owner = await ctx.ownerAuthorization();
  reader = await ctx.addPerson('leser');
  stranger = await ctx.addPerson('fremmed');
  await request(app).post('/intentions/grant_access').set('Authorization', owner).send({ subject_id: reader.id, object_id: ctx.collectionId, access: 'reader' }).expect(200);
  articleId = (await createNode(storesOn(ctx.database.db).graph, { personId: ctx.ownerId, isAdmin: false }, { node_kind: 'content', title: 'Sak', content: 'Tekst', collection_id: ctx.collectionId })).id;
});
afterAll(() => ctx.close());

async function storedMedia(lastAccessedAt = new Date().toISOString()): Promise<string> {
  const id = uuidv7();
  const key = fileKeyOf(id, 'audio/wav');
  const temp = await files.writeTemp(key, FILE);
  const metadata: MediaMetadata = { media_type: 'audio', mime: 'audio/wav', bytes: FILE.length, generated: true, regenerable: true, last_accessed_at: lastAccessedAt };
  await createMediaNode(ctx.database.db, { id, ownerId: articleId, title: 'Opplesning', metadata });
  await files.commit(temp, key);
  return id;
}

/** The path and query of a link GET /media/{id}/link made for the reader. */
async function linkTo(id: string, query = ''): Promise<{ path: string; expires: number; signature: string; body: { url: string; expires_at: string } }> {
  const res = await request(app).get(`/media/${id}/link${query}`).set('Authorization', reader.authorization).expect(200);
  const url = new URL(res.body.url as string);
  return { path: `${url.pathname}${url.search}`, expires: Number(url.searchParams.get('expires')), signature: url.searchParams.get('signature')!, body: res.body };
}

/** A GET with no Authorization header, as a browser's <audio> sends it. */
const browserGet = (path: string) =>
  request(app)
    .get(path)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });

describe('links a browser can play (GET /media/{id}/link)', () => {
  it('answers a url on BASE_URL and its expiry, an hour ahead by default and ttl_seconds when asked', async () => {
    const id = await storedMedia();
    const { body, expires } = await linkTo(id);
    expect(body.url).toMatch(new RegExp(`^http://[^/]+/media/${id}\\?expires=\\d+&signature=[A-Za-z0-9_-]{43}$`));
    expect(expires - Math.floor(nowMs / 1000)).toBe(3600);
    expect(new Date(body.expires_at).getTime()).toBe(expires * 1000);
    const short = await linkTo(id, '?ttl_seconds=60');
    expect(short.expires - Math.floor(nowMs / 1000)).toBe(60);
  });

  it('bounds the lifetime at 24 hours', async () => {
    const id = await storedMedia();
    await request(app).get(`/media/${id}/link?ttl_seconds=86401`).set('Authorization', reader.authorization).expect(400);
    await request(app).get(`/media/${id}/link?ttl_seconds=0`).set('Authorization', reader.authorization).expect(400);
  });

  it('a link works without a Bearer header, Range, ETag and 304 included', async () => {
    const id = await storedMedia();
    const { path } = await linkTo(id);
    const whole = await browserGet(path).expect(200);
    expect(whole.headers['content-type']).toBe('audio/wav');
    expect(new Uint8Array(whole.body as Buffer)).toEqual(FILE);
    const part = await browserGet(path).set('Range', 'bytes=100-199').expect(206);
    expect(part.headers['content-range']).toBe('bytes 100-199/1000');
    expect(new Uint8Array(part.body as Buffer)).toEqual(FILE.slice(100, 200));
    await browserGet(path).set('If-None-Match', whole.headers.etag as string).expect(304);
  });

  it('reading through a link counts as access for pruning', async () => {
    const id = await storedMedia('2020-01-01T00:00:00.000Z');
    await browserGet((await linkTo(id)).path).expect(200);
    // The update runs beside the answer (media-file.ts): wait for it, bounded.
    let accessed = 0;
    for (let i = 0; i < 50 && accessed < Date.parse('2025-01-01'); i++) {
      const row = await ctx.database.db.selectFrom('nodes').select('metadata').where('id', '=', id).executeTakeFirstOrThrow();
      accessed = Date.parse((row.metadata as MediaMetadata).last_accessed_at!);
      if (accessed < Date.parse('2025-01-01')) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(accessed).toBeGreaterThan(Date.parse('2025-01-01'));
  });

  it('refuses a tampered id, expiry or signature with 401', async () => {
    const id = await storedMedia();
    const other = await storedMedia();
    const { expires, signature } = await linkTo(id);
    const flipped = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    for (const path of [
      `/media/${other}?expires=${expires}&signature=${signature}`,
      `/media/${id}?expires=${expires + 3600}&signature=${signature}`,
      `/media/${id}?expires=${expires}&signature=${flipped}`,
      `/media/${id}?expires=${expires}`,
      `/media/${id}?signature=${signature}`,
    ]) {
      const res = await browserGet(path);
      expect({ path, status: res.status, body: JSON.parse(String(res.body)) }).toEqual({ path, status: 401, body: { error: 'Ugyldig signatur' } });
    }
  });

  it('refuses an expired link with 403 and says so', async () => {
    const id = await storedMedia();
    const { path } = await linkTo(id, '?ttl_seconds=60');
    const saved = nowMs;
    nowMs += 61_000;
    try {
      const res = await browserGet(path);
      expect(res.status).toBe(403);
      expect(JSON.parse(String(res.body))).toEqual({ error: 'Lenken er utløpt; be om en ny' });
    } finally {
      nowMs = saved;
    }
  });

  it('a link made with another key is refused (MEDIA_URL_SECRET)', async () => {
    const id = await storedMedia();
    const { path } = await linkTo(id);
    const elsewhere = ctx.app({ files, mediaUrlSecret: 'x'.repeat(32) });
    await request(elsewhere).get(path).expect(401);
  });

  it('a link one API process made opens on another with nothing configured (the key is server_secrets.media_link, issue 38)', async () => {
    const id = await storedMedia();
    const { path } = await linkTo(id);
    for (let i = 0; i < 3; i++) await request(ctx.app({ files, now: () => nowMs })).get(path).expect(200);
  });

  it('after `inntak secrets rotate media_link` a link made before still opens; one signed with the old key after the overlap does not', async () => {
    const id = await storedMedia();
    const before = await linkTo(id);
    expect(await rotateServerSecret(ctx.database.db, 'media_link')).toBe(true);
    // A process started after the rotation knows both keys.
    const fresh = ctx.app({ files, now: () => nowMs });
    await request(fresh).get(before.path).expect(200);
    const after = await request(fresh).get(`/media/${id}/link`).set('Authorization', reader.authorization).expect(200);
    expect(new URL(after.body.url as string).searchParams.get('signature')).not.toBe(before.signature);
    await sql`update server_secrets set rotated_at = now() - make_interval(hours => ${KEY_OVERLAP_HOURS + 1}) where name = 'media_link'`.execute(ctx.database.db);
    await request(ctx.app({ files, now: () => nowMs })).get(before.path).expect(401);
  });

  it('a caller without read access gets 404 for the link; no credentials at all stay 401', async () => {
    const id = await storedMedia();
    await request(app).get(`/media/${id}/link`).set('Authorization', stranger.authorization).expect(404);
    await request(app).get(`/media/${id}/link`).expect(401);
    const res = await browserGet(`/media/${id}`);
    expect(res.status).toBe(401);
    expect(JSON.parse(String(res.body))).toEqual({ error: 'Mangler Authorization-header' });
  });
});
