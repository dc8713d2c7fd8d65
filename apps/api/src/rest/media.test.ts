import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { uuidv7 } from '@inntak/core';
import { LocalFileStore } from '@inntak/files';
import { DEFAULT_SPEECH_LIMITS, fileKeyOf, type MediaMetadata } from '@inntak/media';
import { createMediaNode, recordPruneRun } from '@inntak/postgres/media';
import { OWNER_SUBJECT, setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { connectStream, type StreamClient } from '../__tests__/realtime-helpers.js';
import { startApiServer, type ApiServer } from '../api-server.js';
import { OidcTokenVerifier } from '../oidc-verifier.js';
import { createCollection, createNode } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

let ctx: TestContext;
let app: Express;
let files: LocalFileStore;
let storageDir: string;
let owner: string;
let reader: { id: string; authorization: string };
let member: { id: string; authorization: string };
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
  member = await ctx.addPerson('medlem');
  await request(app).post('/intentions/grant_access').set('Authorization', owner).send({ subject_id: reader.id, object_id: ctx.collectionId, access: 'reader' }).expect(200);
  await request(app).post('/intentions/grant_access').set('Authorization', owner).send({ subject_id: member.id, object_id: ctx.collectionId, access: 'member' }).expect(200);
  articleId = (await createNode(storesOn(ctx.database.db).graph, { personId: ctx.ownerId, isAdmin: false }, { node_kind: 'content', title: 'Sak', content: 'Tekst', collection_id: ctx.collectionId })).id;
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
  const generate = (authorization: string, body: Record<string, unknown>, on: Express = app) =>
    request(on).post('/intentions/generate_tts').set('Authorization', authorization).send(body);
  const node = async (content: string, options: { visibility?: 'readable'; collectionId?: string } = {}) =>
    (
      await createNode(storesOn(ctx.database.db).graph, { personId: ctx.ownerId, isAdmin: false }, { node_kind: 'content', title: 'Sak', content, visibility: options.visibility, collection_id: options.collectionId ?? ctx.collectionId }
      )
    ).id;

  it('queues a tts_generate job for a member of the node: 202 with the job id, the person recorded', async () => {
    const res = await generate(member.authorization, { node_id: articleId, voice: 'nb', rate: 200 });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ job_id: expect.any(Number) });
    const job = (await jobs()).find((j) => Number(j.id) === res.body.job_id);
    expect(job).toMatchObject({ payload: { node_id: articleId, voice: 'nb', rate: 200, requested_by: member.id }, max_attempts: 3 });
  });

  it('answers 404 for a node the caller may not read, and 400 for a bad voice or rate; nothing is queued', async () => {
    const before = await jobs();
    const hidden = await generate(stranger.authorization, { node_id: articleId });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ error: 'Finnes ikke: node_id' });
    const voice = await generate(owner, { node_id: articleId, voice: '--help' });
    expect(voice.status).toBe(400);
    expect(voice.body.error).toMatch(/^Ugyldig forespørsel: voice: /);
    const rate = await generate(owner, { node_id: articleId, rate: 1000 });
    expect(rate.status).toBe(400);
    expect(await jobs()).toEqual(before);
  });

  it("a stranger cannot attach speech to the owner's readable node, nor a reader to the collection's: 403, nothing queued", async () => {
    const readable = await node('Alle kan lese denne saken.', { visibility: 'readable' });
    const before = await jobs();
    const byStranger = await generate(stranger.authorization, { node_id: readable, rate: 80 });
    expect(byStranger.status).toBe(403);
    expect(byStranger.body).toEqual({ error: 'Ingen tilgang' });
    const byReader = await generate(reader.authorization, { node_id: articleId });
    expect(byReader.status).toBe(403);
    expect(await jobs()).toEqual(before);
  });

  it('refuses a text longer than TTS_MAX_TEXT_CHARS, and the attack (19,666 characters at 80 wpm) by its estimated audio: 422', async () => {
    const person = await ctx.addPerson('langleser');
    await request(app).post('/intentions/grant_access').set('Authorization', owner).send({ subject_id: person.id, object_id: ctx.collectionId, access: 'member' }).expect(200);
    const before = await jobs();
    const tooLong = await node('ord '.repeat(6000).trim());
    const text = await generate(person.authorization, { node_id: tooLong });
    expect(text.status).toBe(422);
    expect(text.body).toEqual({ error: `Teksten er for lang til opplesning: ${'Sak. '.length + 4 * 6000 - 1} tegn; høyst ${DEFAULT_SPEECH_LIMITS.maxTextChars}` });
    const attack = await node('x'.repeat(19_666 - 'Sak. '.length));
    const slow = await generate(person.authorization, { node_id: attack, rate: 80 });
    expect(slow.status).toBe(422);
    expect(slow.body).toEqual({ error: `Opplesningen ville blitt for lang: om lag 2459 s; høyst ${DEFAULT_SPEECH_LIMITS.maxAudioSeconds} s` });
    expect(await jobs()).toEqual(before);
    // The same text at the default rate is within both limits.
    expect((await generate(person.authorization, { node_id: attack })).status).toBe(202);
  });

  it('a person with TTS_JOBS_PER_PERSON jobs queued or running gets 429 until one ends; parallel requests cannot slip past', async () => {
    const person = await ctx.addPerson('ivrig');
    await request(app).post('/intentions/grant_access').set('Authorization', owner).send({ subject_id: person.id, object_id: ctx.collectionId, access: 'member' }).expect(200);
    const answers = await Promise.all(Array.from({ length: 6 }, () => generate(person.authorization, { node_id: articleId })));
    expect(answers.map((a) => a.status).sort()).toEqual([202, 202, 429, 429, 429, 429]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.body).toEqual({ error: 'Du har for mange opplesninger i kø; vent til en er ferdig: høyst 2 om gangen' });
    expect(refused.headers['retry-after']).toBeDefined();
    // Someone else is not held up by this person's jobs.
    const other = await ctx.addPerson('annen');
    await request(app).post('/intentions/grant_access').set('Authorization', owner).send({ subject_id: other.id, object_id: ctx.collectionId, access: 'member' }).expect(200);
    expect((await generate(other.authorization, { node_id: articleId })).status).toBe(202);
    // A job that ends frees its place.
    const [first] = answers.filter((a) => a.status === 202);
    await ctx.database.db.updateTable('job_queue').set({ status: 'completed' }).where('id', '=', String(first!.body.job_id)).execute();
    expect((await generate(person.authorization, { node_id: articleId })).status).toBe(202);
    expect((await generate(person.authorization, { node_id: articleId })).status).toBe(429);
  });

  it("refuses new speech once the collection's media would pass MEDIA_BYTES_PER_COLLECTION: 409; other collections are not held up", async () => {
    const full = (await createCollection(storesOn(ctx.database.db).graph, { title: 'Full', ownerId: ctx.ownerId })).id;
    const roomy = (await createCollection(storesOn(ctx.database.db).graph, { title: 'Romslig', ownerId: ctx.ownerId })).id;
    const limited = ctx.app({ files, speech: { ...DEFAULT_SPEECH_LIMITS, jobsPerPerson: 100, collectionMediaBytes: 100_000 } });
    const short = await node('Kort.', { collectionId: full });
    // 'Sak. Kort.' is about 1 s of audio: 44 144 bytes estimated.
    expect((await generate(owner, { node_id: short }, limited)).status).toBe(202);
    const earlier = await node('Tidligere sak.', { collectionId: full });
    const metadata: MediaMetadata = { media_type: 'audio', mime: 'audio/wav', bytes: 60_000, generated: true, regenerable: true, last_accessed_at: new Date().toISOString() };
    await createMediaNode(ctx.database.db, { ownerId: earlier, title: 'Opplesning', metadata });
    const before = await jobs();
    const refused = await generate(owner, { node_id: short }, limited);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ error: 'Samlingen har ikke plass til flere medier: 104144 byte; høyst 100000' });
    expect(await jobs()).toEqual(before);
    expect((await generate(owner, { node_id: await node('Kort.', { collectionId: roomy }) }, limited)).status).toBe(202);
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
