import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { LocalFileStore } from '@inntak/files';
import { DEFAULT_UPLOAD_LIMITS, encodeWav, fileKeyOf } from '@inntak/media';
import { addCollectionPeople } from '../__tests__/collection-people.js';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { createCollection, createNode } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

let ctx: TestContext;
let app: Express;
let storageDir: string;
let owner: string;
let member: { id: string; authorization: string };
let reader: { id: string; authorization: string };
let stranger: { id: string; authorization: string };
const fixture = (name: string) => readFile(join(import.meta.dirname, '..', '__tests__', 'media-fixtures', name));
/** Small limits, so "too big" needs no big file. */
const LIMITS = { ...DEFAULT_UPLOAD_LIMITS, audio: 30_000, image: 1000, video: 10_000, collectionMediaBytes: 200_000 };

beforeAll(async () => {
  ctx = await setupTestContext();
  storageDir = await mkdtemp(join(tmpdir(), 'inntak-upload-'));
  app = ctx.app({ files: new LocalFileStore(storageDir), uploads: LIMITS });
  owner = await ctx.ownerAuthorization();
  ({ member, reader, stranger } = await addCollectionPeople(ctx, app, owner));
});
afterAll(() => ctx.close());

const upload = (bytes: Buffer, authorization = member.authorization, collectionId = ctx.collectionId, contentType = 'application/octet-stream') =>
  request(app).post(`/media?collection_id=${collectionId}`).set('Authorization', authorization).set('Content-Type', contentType).send(bytes);

const mediaCount = async () => (await ctx.database.db.selectFrom('nodes').select(({ fn }) => fn.countAll<string>().as('n')).where('node_kind', '=', 'media').executeTakeFirstOrThrow()).n;

describe('POST /media', () => {
  it.each([
    ['tone.wav', 'audio/wav', { media_type: 'audio', duration_s: 1.5, transcribed: false }],
    ['tone.mp3', 'audio/mpeg', { media_type: 'audio', transcribed: false }],
    ['tone.opus', 'audio/ogg', { media_type: 'audio', transcribed: false }],
    ['tone.flac', 'audio/flac', { media_type: 'audio', duration_s: 1.5, transcribed: false }],
    ['pic.png', 'image/png', { media_type: 'image', width: 4, height: 2 }],
    ['pic.jpg', 'image/jpeg', { media_type: 'image', width: 16, height: 8 }],
    ['pic.webp', 'image/webp', { media_type: 'image', width: 10, height: 6 }],
    ['clip.mp4', 'video/mp4', { media_type: 'video', duration_s: 2 }],
    ['clip.webm', 'video/webm', { media_type: 'video', duration_s: 2 }],
  ])('takes %s as %s, sniffed from the bytes whatever the Content-Type says, with its metadata and checksum', async (name, mime, expected) => {
    const bytes = await fixture(name);
    const res = await upload(bytes, member.authorization, ctx.collectionId, 'text/plain');
    expect(res.status).toBe(201);
    expect(res.body.metadata).toMatchObject({ ...expected, mime, bytes: bytes.byteLength, sha256: createHash('sha256').update(bytes).digest('hex'), generated: false });
    // MP3 and Opus carry encoder padding: about 1.5 s, never less.
    if (expected.media_type === 'audio') expect(res.body.metadata.duration_s).toBeGreaterThanOrEqual(1.5);
    if (expected.media_type === 'audio') expect(res.body.metadata.duration_s).toBeLessThan(1.6);
    expect(await readFile(join(storageDir, fileKeyOf(res.body.id, mime)))).toEqual(bytes);
    const edge = await ctx.database.db.selectFrom('edges').select('edge_type').where('source_id', '=', ctx.collectionId).where('target_id', '=', res.body.id).executeTakeFirst();
    expect(edge?.edge_type).toBe('has_media');
    // The uploader reads it back like any media of the collection.
    expect((await request(app).get(`/media/${res.body.id}`).set('Authorization', reader.authorization)).status).toBe(200);
  });

  it('audio arrives untranscribed, with a speech_transcription job queued in the same transaction', async () => {
    const res = await upload(await fixture('tone.wav'));
    const job = await ctx.database.db.selectFrom('job_queue').select(['job_type', 'payload']).where('id', '=', String(res.body.transcription_job_id)).executeTakeFirstOrThrow();
    expect(job).toEqual({ job_type: 'speech_transcription', payload: { media_id: res.body.id, requested_by: member.id } });
    expect((await upload(await fixture('pic.png'))).body.transcription_job_id).toBeNull();
  });

  it('takes multipart/form-data with a file part and a title', async () => {
    const res = await request(app)
      .post(`/media?collection_id=${ctx.collectionId}`)
      .set('Authorization', member.authorization)
      .field('title', 'Intervju')
      .attach('file', await fixture('tone.mp3'), 'intervju.mp3');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: 'Intervju', metadata: { mime: 'audio/mpeg' } });
  });

  it('refuses what it does not take with 415, a file past its kind’s limit with 413; nothing is stored', async () => {
    const before = await mediaCount();
    const vorbis = await upload(await fixture('tone-vorbis.ogg'));
    expect(vorbis.status).toBe(415);
    expect(vorbis.body.error).toMatch(/^Filtypen støttes ikke: /);
    expect((await upload(Buffer.from('{"not":"media"}'), member.authorization, ctx.collectionId, 'audio/wav')).status).toBe(415);
    const big = Buffer.concat([await fixture('pic.png'), Buffer.alloc(2000)]);
    const tooBig = await upload(big);
    expect(tooBig.status).toBe(413);
    expect(tooBig.body).toEqual({ error: `Filen er for stor: image/png kan være høyst ${LIMITS.image} byte` });
    expect((await upload(Buffer.concat([await fixture('clip.mp4'), Buffer.alloc(10_000)]))).status).toBe(413);
    expect(await mediaCount()).toBe(before);
    expect((await readdir(join(storageDir, '.tmp')).catch(() => [])).length).toBe(0);
  });

  it('a file whose bytes claim a type but do not read as one is 422', async () => {
    const png = await fixture('pic.png');
    const res = await upload(png.subarray(0, 20));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatch(/^Filen kunne ikke leses: not a readable image\/png file/);
  });

  it('a WAV whose header claims 100 MHz or 9 channels is 422 naming it, before any job decodes it; nothing is stored (issue 35, finding 4)', async () => {
    const claiming = (rate: number, channels: number) => {
      const wav = Buffer.from(encodeWav(new Float32Array(6000), 44_100));
      wav.writeUInt32LE(rate, 24);
      wav.writeUInt16LE(channels, 22);
      return wav;
    };
    const before = await mediaCount();
    const fast = await upload(claiming(100_000_000, 1));
    expect(fast.status).toBe(422);
    expect(fast.body).toEqual({ error: 'Lyden er utenfor det tjenesten tar imot: samplingsfrekvensen er 100000000 Hz; den må være fra 8000 til 192000 Hz' });
    const wide = await upload(claiming(44_100, 9));
    expect(wide.status).toBe(422);
    expect(wide.body).toEqual({ error: 'Lyden er utenfor det tjenesten tar imot: lyden har 9 kanaler; høyst 8' });
    expect(await mediaCount()).toBe(before);
    expect((await upload(claiming(192_000, 8))).status).toBe(201);
  });

  it('needs member on a collection: a reader 403, a stranger 404, a node that is no collection 400', async () => {
    const wav = await fixture('tone.wav');
    expect((await upload(wav, reader.authorization)).status).toBe(403);
    const hidden = await upload(wav, stranger.authorization);
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual({ error: 'Finnes ikke: collection_id' });
    const article = (await createNode(storesOn(ctx.database.db).graph, { personId: ctx.ownerId, isAdmin: false }, { node_kind: 'content', title: 'Sak', collection_id: ctx.collectionId })).id;
    expect((await upload(wav, owner, article)).status).toBe(400);
    expect((await request(app).post('/media').set('Authorization', owner).send(wav)).status).toBe(400);
  });

  it('refuses an upload that would pass MEDIA_BYTES_PER_COLLECTION with 409', async () => {
    const small = (await createCollection(storesOn(ctx.database.db).graph, { title: 'Liten', ownerId: ctx.ownerId })).id;
    const narrow = ctx.app({ files: new LocalFileStore(storageDir), uploads: { ...LIMITS, collectionMediaBytes: 40_000 } });
    const send = async () => request(narrow).post(`/media?collection_id=${small}`).set('Authorization', owner).send(await fixture('tone.wav'));
    expect((await send()).status).toBe(201);
    const full = await send();
    expect(full.status).toBe(409);
    expect(full.body.error).toMatch(/^Samlingen har ikke plass til flere medier: /);
  });

  // Found attacking the merged result of issue 35 (docs/security.md, fifth attack): the quota was
  // per collection only, and any login may make collections, so one login filled the disk a
  // collection's quota at a time.
  it('refuses an upload past MEDIA_UPLOAD_BYTES_PER_PERSON with 409, however many collections of their own the uploader spreads it over', async () => {
    const uploader = await ctx.addPerson('samler');
    const capped = ctx.app({ files: new LocalFileStore(storageDir), uploads: { ...LIMITS, collectionMediaBytes: 40_000, personUploadBytes: 36_000 } });
    const tone = await fixture('tone.wav');
    const into = async () => {
      const made = await request(capped).post('/intentions/create_collection').set('Authorization', uploader.authorization).send({ title: 'Egen' });
      expect(made.status).toBe(201);
      return request(capped).post(`/media?collection_id=${made.body.id}`).set('Authorization', uploader.authorization).send(tone);
    };
    expect(tone.byteLength).toBeGreaterThan(20_000);
    expect((await into()).status).toBe(201);
    const before = await mediaCount();
    const over = await into();
    expect(over.status).toBe(409);
    expect(over.body.error).toMatch(/^Samlingen har ikke plass til flere medier: .*lastet opp av deg; høyst 36000$/);
    expect(await mediaCount()).toBe(before);
    // Someone else's uploads are theirs: another person (who has uploaded nothing in this file,
    // unlike the owner) still uploads.
    const other = await ctx.addPerson('annen');
    const others = (await createCollection(storesOn(ctx.database.db).graph, { title: 'Andres', ownerId: other.id })).id;
    expect((await request(capped).post(`/media?collection_id=${others}`).set('Authorization', other.authorization).send(tone)).status).toBe(201);
  });
});

describe('GET /media/{id}/transcription and POST /intentions/transcribe', () => {
  it('an upload owes its transcription: transcribed false and no segments until the job has run; then its segments, to readers of the node only', async () => {
    const { body } = await upload(await fixture('tone.wav'));
    const before = await request(app).get(`/media/${body.id}/transcription`).set('Authorization', reader.authorization);
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ media_id: body.id, transcribed: false, segments: [] });
    const { saveTranscription } = await import('@inntak/postgres/media');
    await saveTranscription(ctx.database.db, body.id, [{ start_s: 0.2, end_s: 1.1, text: 'hei hei' }], { engine: 'test', at: new Date().toISOString() }, () => {});
    const after = await request(app).get(`/media/${body.id}/transcription`).set('Authorization', reader.authorization);
    expect(after.body).toEqual({ media_id: body.id, transcribed: true, segments: [{ start_s: 0.2, end_s: 1.1, text: 'hei hei' }] });
    expect((await request(app).get(`/media/${body.id}/transcription`).set('Authorization', stranger.authorization)).status).toBe(404);
  });

  it('transcribe needs member on the audio node: 202 with the job, 403 for a reader, 400 for an image', async () => {
    const audio = (await upload(await fixture('tone.wav'))).body.id;
    const picture = (await upload(await fixture('pic.png'))).body.id;
    const ask = (mediaId: string, authorization: string) => request(app).post('/intentions/transcribe').set('Authorization', authorization).send({ media_id: mediaId });
    const queued = await ask(audio, member.authorization);
    expect(queued.status).toBe(202);
    expect(queued.body).toEqual({ job_id: expect.any(Number) });
    expect((await ask(audio, reader.authorization)).status).toBe(403);
    expect((await ask(picture, member.authorization)).status).toBe(400);
    expect((await ask(audio, stranger.authorization)).status).toBe(404);
  });
});
