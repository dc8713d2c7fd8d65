import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request as httpRequest, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { LocalFileStore } from '@inntak/files';
import { DEFAULT_UPLOAD_LIMITS } from '@inntak/media';
import { setupTestContext, type TestContext } from '../__tests__/helpers.js';
import { createNode } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

// POST /media attacked as an outsider would (docs/security.md, "Third attack (this round)").

let ctx: TestContext;
let app: Express;
let storageDir: string;
let member: { id: string; authorization: string };
let png: Buffer;
/** Room for exactly three copies of the 94-byte PNG. */
const ROOM_FOR = 3;

beforeAll(async () => {
  ctx = await setupTestContext();
  storageDir = await mkdtemp(join(tmpdir(), 'inntak-upload-race-'));
  png = await readFile(join(import.meta.dirname, '..', '__tests__', 'media-fixtures', 'pic.png'));
  app = ctx.app({ files: new LocalFileStore(storageDir), uploads: { ...DEFAULT_UPLOAD_LIMITS, collectionMediaBytes: ROOM_FOR * png.byteLength } });
  member = await ctx.addPerson('medlem');
});
afterAll(() => ctx.close());

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => e.name);
}

describe('MEDIA_BYTES_PER_COLLECTION under concurrent uploads', () => {
  it('twelve uploads into one collection at once store no more than fit: the rest answer 409 and leave no file', async () => {
    const collection = await request(app).post('/intentions/create_collection').set('Authorization', member.authorization).send({ title: 'Full snart' }).expect(201);
    const collectionId = collection.body.id as string;
    // Six members, two uploads each (UPLOADS_PER_CALLER): twelve at once.
    const uploaders = [member];
    for (let i = 1; i < 6; i++) {
      const person = await ctx.addPerson(`opplaster-${i}`);
      await request(app).post('/intentions/grant_access').set('Authorization', member.authorization).send({ subject_id: person.id, object_id: collectionId, access: 'member' }).expect(200);
      uploaders.push(person);
    }
    const answers = await Promise.all(
      uploaders.flatMap((person) => [0, 1].map(() => request(app).post(`/media?collection_id=${collectionId}`).set('Authorization', person.authorization).set('Content-Type', 'image/png').send(png))),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(ROOM_FOR);
    expect(statuses.filter((s) => s === 409)).toHaveLength(12 - ROOM_FOR);
    const { rows } = await ctx.database.pool.query<{ bytes: string }>(
      `select coalesce(sum((m.metadata ->> 'bytes')::bigint), 0) as bytes from edges h join nodes m on m.id = h.target_id and m.node_kind = 'media'
        where h.source_id = $1 and h.edge_type = 'has_media'`,
      [collectionId],
    );
    expect(Number(rows[0]!.bytes)).toBeLessThanOrEqual(ROOM_FOR * png.byteLength);
    expect(await filesUnder(storageDir)).toHaveLength(ROOM_FOR);
  });
});

describe('uploads one person holds open at once', () => {
  it('beyond two in flight, a third answers 429 with Retry-After before its body is read; once they end, uploads go through again', async () => {
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as AddressInfo;
    const collection = await request(app).post('/intentions/create_collection').set('Authorization', member.authorization).send({ title: 'Trege' }).expect(201);
    const collectionId = collection.body.id as string;
    // Two uploads that announce 150 MB and send only the PNG header: each would be held in memory as it arrives.
    const slow: ClientRequest[] = [];
    const accepted: Array<Promise<number>> = [];
    for (let i = 0; i < 2; i++) {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: `/media?collection_id=${collectionId}`, headers: { Authorization: member.authorization, 'Content-Type': 'application/octet-stream', 'Content-Length': String(150 * 2 ** 20) } });
      accepted.push(new Promise((resolve) => { req.on('response', (r) => resolve(r.statusCode ?? 0)); req.on('error', () => resolve(-1)); }));
      req.write(png.subarray(0, 16));
      slow.push(req);
    }
    // The server has both in hand once they are counted: a third waits its turn in vain until then.
    let third = 0;
    for (let tries = 0; tries < 50 && third !== 429; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const res = await request(server).post(`/media?collection_id=${collectionId}`).set('Authorization', member.authorization).set('Content-Type', 'image/png').send(png);
      third = res.status;
      if (third === 429) expect(res.headers['retry-after']).toBe('1');
      expect([201, 429]).toContain(third);
    }
    expect(third).toBe(429);
    for (const req of slow) req.destroy();
    await Promise.all(accepted);
    let after = 0;
    for (let tries = 0; tries < 50 && after !== 201; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = (await request(server).post(`/media?collection_id=${collectionId}`).set('Authorization', member.authorization).set('Content-Type', 'image/png').send(png)).status;
    }
    expect(after).toBe(201);
    await new Promise((resolve) => server.close(resolve));
  });
});

describe('render_mix reads only sources its asker may read', () => {
  it('a member of the room cannot mix (and so hear) a source kept from them: 403, no job; one who reads every source may', async () => {
    // Default limits: the collection quota above is for three small pictures.
    const roomy = ctx.app({ files: new LocalFileStore(storageDir) });
    const owner = await ctx.ownerAuthorization();
    const kept = await request(roomy).post('/intentions/create_collection').set('Authorization', owner).send({ title: 'Bare eieren' }).expect(201);
    const wav = await readFile(join(import.meta.dirname, '..', '__tests__', 'media-fixtures', 'tone.wav'));
    const source = await request(roomy).post(`/media?collection_id=${kept.body.id}`).set('Authorization', owner).set('Content-Type', 'audio/wav').send(wav).expect(201);
    const guest = await ctx.addPerson('gjest');
    await request(roomy).post('/intentions/grant_access').set('Authorization', owner).send({ subject_id: guest.id, object_id: ctx.collectionId, access: 'member' }).expect(200);
    expect((await request(roomy).get(`/media/${source.body.id}`).set('Authorization', guest.authorization)).status).toBe(404);
    const room = await createNode(storesOn(ctx.database.db).graph, { personId: ctx.ownerId, isAdmin: false }, { node_kind: 'communication', title: 'Rom', collection_id: ctx.collectionId });
    await request(roomy).post('/intentions/create_mixer_channel').set('Authorization', owner).send({ room_id: room.id, label: 'Eierens', node_id: source.body.id }).expect(201);
    const jobs = async () => (await ctx.database.pool.query(`select count(*)::int as n from job_queue where job_type = 'render_mix'`)).rows[0].n as number;
    const before = await jobs();
    const refused = await request(roomy).post('/intentions/render_mix').set('Authorization', guest.authorization).send({ room_id: room.id });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('Ingen tilgang: room_id: en kanal har en kilde du ikke kan lese');
    expect(refused.body.error).not.toContain(source.body.id);
    expect(await jobs()).toBe(before);
    expect((await request(roomy).post('/intentions/render_mix').set('Authorization', owner).send({ room_id: room.id })).status).toBe(202);
    expect(await jobs()).toBe(before + 1);
  });
});
