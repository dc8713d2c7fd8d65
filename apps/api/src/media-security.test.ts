import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { LocalFileStore } from '@inntak/files';
import { DEFAULT_UPLOAD_LIMITS } from '@inntak/media';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';

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
  png = await readFile(join(import.meta.dirname, '__tests__', 'media-fixtures', 'pic.png'));
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
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => request(app).post(`/media?collection_id=${collectionId}`).set('Authorization', member.authorization).set('Content-Type', 'image/png').send(png)),
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
