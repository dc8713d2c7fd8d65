import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { uuidv7 } from '@inntak/core';
import { LocalFileStore } from '@inntak/files';
import { fileKeyOf, type MediaMetadata } from '@inntak/media';
import { createNode } from '@inntak/postgres/graph';
import { createMediaNode, recordPruneRun } from '@inntak/postgres/media';
import { OWNER_SUBJECT, setupTestContext, type TestContext } from './__tests__/helpers.js';
import { connectStream, type StreamClient } from './__tests__/realtime-helpers.js';
import { startApiServer, type ApiServer } from './api-server.js';
import { OidcTokenVerifier } from './oidc-verifier.js';

let ctx: TestContext;
let app: Express;
let files: LocalFileStore;
let storageDir: string;
let owner: string;
let reader: { id: string; authorization: string };
let stranger: { id: string; authorization: string };
let articleId: string;
const FILE = Uint8Array.from({ length: 1000 }, (_, i) => i % 251);

beforeAll(async () => {
  ctx = await setupTestContext();
  storageDir = await mkdtemp(join(tmpdir(), 'inntak-api-media-'));
  files = new LocalFileStore(storageDir);
  app = ctx.app({ files });
  owner = await ctx.ownerAuthorization();
  reader = await ctx.addPerson('leser');
  stranger = await ctx.addPerson('fremmed');
  await request(app).post('/intentions/grant_access').set('Authorization', owner).send({ subject_id: reader.id, object_id: ctx.collectionId, access: 'reader' }).expect(200);
  articleId = (await createNode(ctx.database.db, { personId: ctx.ownerId, isAdmin: false }, { node_kind: 'content', title: 'Sak', content: 'Tekst', collection_id: ctx.collectionId })).id;
});
afterAll(() => ctx.close());

/** A media node of the article with its file in place, as the worker leaves it. */
async function storedMedia(overrides: Partial<MediaMetadata> = {}): Promise<string> {
  const id = uuidv7();
  const key = fileKeyOf(id, 'audio/wav');
  const temp = await files.writeTemp(key, FILE);
  const metadata: MediaMetadata = { media_type: 'audio', mime: 'audio/wav', bytes: FILE.length, generated: true, regenerable: true, last_accessed_at: new Date().toISOString(), ...overrides };
  await createMediaNode(ctx.database.db, { id, ownerId: articleId, title: 'Opplesning', metadata });
  await files.commit(temp, key);
  return id;
}

const get = (path: string, authorization: string) =>
  request(app)
    .get(path)
    .set('Authorization', authorization)
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(null, Buffer.concat(chunks)));
    });

describe('GET /media/{id}', () => {
  it('streams the file with its Content-Type to a caller who may read the media node', async () => {
    const id = await storedMedia();
    const res = await get(`/media/${id}`, reader.authorization);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('audio/wav');
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['content-length']).toBe('1000');
    expect(new Uint8Array(res.body as Buffer)).toEqual(FILE);
  });

  it('answers a Range request with 206 and exactly the bytes asked for', async () => {
    const id = await storedMedia();
    const middle = await get(`/media/${id}`, reader.authorization).set('Range', 'bytes=100-199');
    expect(middle.status).toBe(206);
    expect(middle.headers['content-range']).toBe('bytes 100-199/1000');
    expect(new Uint8Array(middle.body as Buffer)).toEqual(FILE.subarray(100, 200));
    const tail = await get(`/media/${id}`, reader.authorization).set('Range', 'bytes=-10');
    expect(tail.status).toBe(206);
    expect(new Uint8Array(tail.body as Buffer)).toEqual(FILE.subarray(990));
  });

  it('answers 416 with the file size for a range beyond the end', async () => {
    const id = await storedMedia();
    const res = await request(app).get(`/media/${id}`).set('Authorization', reader.authorization).set('Range', 'bytes=5000-');
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe('bytes */1000');
    expect(res.body).toEqual({ error: 'Ugyldig byteområde' });
  });

  it('answers 404 to a caller who may not read the media node, and for ids that are no media', async () => {
    const id = await storedMedia();
    for (const path of [`/media/${id}`, `/media/${articleId}`, `/media/${uuidv7()}`, '/media/ikke-en-id']) {
      const res = await request(app).get(path).set('Authorization', path.endsWith(id) ? stranger.authorization : owner);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Finnes ikke: id' });
    }
  });

  it('moves last_accessed_at when read, at most once a minute', async () => {
    const twoMinutesAgo = new Date(Date.now() - 120_000).toISOString();
    const id = await storedMedia({ last_accessed_at: twoMinutesAgo });
    const accessed = async () => {
      const row = await ctx.database.db.selectFrom('nodes').select('metadata').where('id', '=', id).executeTakeFirstOrThrow();
      return (row.metadata as MediaMetadata).last_accessed_at;
    };
    await get(`/media/${id}`, owner).expect(200);
    let moved = twoMinutesAgo;
    for (let i = 0; i < 100 && moved === twoMinutesAgo; i++) {
      await new Promise((r) => setTimeout(r, 20));
      moved = await accessed();
    }
    expect(Date.now() - Date.parse(moved)).toBeLessThan(10_000);
    await get(`/media/${id}`, owner).expect(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(await accessed()).toBe(moved);
  });
});

describe('POST /intentions/generate_tts', () => {
  const jobs = () => ctx.database.db.selectFrom('job_queue').select(['id', 'payload', 'max_attempts']).where('job_type', '=', 'tts_generate').orderBy('id').execute();

  it('queues a tts_generate job for a caller who may read the node: 202 with the job id', async () => {
    const res = await request(app).post('/intentions/generate_tts').set('Authorization', reader.authorization).send({ node_id: articleId, voice: 'nb', rate: 200 });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ job_id: expect.any(Number) });
    const job = (await jobs()).find((j) => Number(j.id) === res.body.job_id);
    expect(job).toMatchObject({ payload: { node_id: articleId, voice: 'nb', rate: 200 }, max_attempts: 3 });
  });

  it('answers 404 for a node the caller may not read, and 400 for a bad voice or rate; nothing is queued', async () => {
    const before = await jobs();
    const hidden = await request(app).post('/intentions/generate_tts').set('Authorization', stranger.authorization).send({ node_id: articleId });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ error: 'Finnes ikke: node_id' });
    const voice = await request(app).post('/intentions/generate_tts').set('Authorization', owner).send({ node_id: articleId, voice: '--help' });
    expect(voice.status).toBe(400);
    expect(voice.body.error).toMatch(/^Ugyldig forespørsel: voice: /);
    const rate = await request(app).post('/intentions/generate_tts').set('Authorization', owner).send({ node_id: articleId, rate: 1000 });
    expect(rate.status).toBe(400);
    expect(await jobs()).toEqual(before);
  });
});

describe('media on the stream', () => {
  let api: ApiServer;
  let client: StreamClient;
  beforeAll(async () => {
    api = await startApiServer(
      {
        logger: ctx.logger,
        database: ctx.database,
        databaseUrl: ctx.testDb.url,
        baseUrl: 'http://127.0.0.1',
        verifier: new OidcTokenVerifier(ctx.issuer.issuer, ctx.issuer.audience, ctx.logger),
        bodyLimitBytes: 1024 * 1024,
        slowRequestMs: 200,
        storageDir,
        realtime: { maxQueue: 1000, initialSync: { collections: 50, nodesPerCollection: 20 } },
      },
      0,
      '127.0.0.1',
    );
    client = await connectStream(api.url, await ctx.tokenFor(OWNER_SUBJECT));
  });
  afterAll(async () => {
    client.close();
    await api.close();
  });

  it('a new media node and its has_media edge reach the clients who may read the owner node', async () => {
    const id = await storedMedia();
    const node = await client.next((e) => e.type === 'node.created' && e.row.id === id);
    expect(node.row).toMatchObject({ node_kind: 'media', metadata: { mime: 'audio/wav' } });
    const edge = await client.next((e) => e.type === 'edge.created' && e.row.target_id === id);
    expect(edge.row).toMatchObject({ edge_type: 'has_media', source_id: articleId });
    const res = await fetch(`${api.url}/media/${id}`, { headers: { Authorization: owner } });
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(FILE);
  });
});

describe('GET /admin/resources', () => {
  it('shows the last pruning run', async () => {
    const admin = await ctx.addPerson('driftsansvarlig', { admin: true });
    const before = await request(app).get('/admin/resources').set('Authorization', admin.authorization);
    expect(before.status).toBe(200);
    expect(before.body.pruning).toBeNull();
    const deleted = [{ id: uuidv7(), media_type: 'audio' as const, bytes: 123, reason: 'expired' as const }];
    await recordPruneRun(ctx.database.db, { mode: 'run', trigger: 'schedule', started_at: new Date().toISOString(), finished_at: new Date().toISOString(), disk_percent: 87.5, deleted, freed_bytes: 123, swept: [] });
    const after = await request(app).get('/admin/resources').set('Authorization', admin.authorization);
    expect(after.body.pruning).toMatchObject({ mode: 'run', trigger: 'schedule', disk_percent: 87.5, deleted, freed_bytes: 123 });
  });
});
