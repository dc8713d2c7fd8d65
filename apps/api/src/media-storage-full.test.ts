import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { Express } from 'express';
import { LocalFileStore } from '@inntak/files';
import { DEFAULT_UPLOAD_LIMITS } from '@inntak/media';
import { setupTestContext, type TestContext } from './__tests__/helpers.js';

// STORAGE_DIR on a real full filesystem: a 32 KB tmpfs (mounting one needs root; elsewhere the
// block is skipped, saying so). An upload that cannot be written answers 507 and leaves nothing
// behind in .tmp/ (issue 38: 500 `Intern feil`, and partial files kept for an hour).
const storageDir = mkdtempSync(join(tmpdir(), 'inntak-full-'));
let mounted = false;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=32k', 'tmpfs', storageDir], { stdio: 'ignore' });
  mounted = true;
} catch {
  console.log('media-storage-full.test.ts skipped: cannot mount a tmpfs here (needs root)');
}

let ctx: TestContext;
let app: Express;
let owner: string;
/** Three members: one person uploads one file at a time (429 otherwise), so the race needs three. */
let members: string[];

beforeAll(async () => {
  if (!mounted) return;
  ctx = await setupTestContext();
  app = ctx.app({ files: new LocalFileStore(storageDir), uploads: DEFAULT_UPLOAD_LIMITS });
  owner = await ctx.ownerAuthorization();
  members = [];
  for (const name of ['a', 'b', 'c']) {
    const person = await ctx.addPerson(`full-${name}`);
    await request(app).post('/intentions/grant_access').set('Authorization', owner).send({ subject_id: person.id, object_id: ctx.collectionId, access: 'member' }).expect(200);
    members.push(person.authorization);
  }
});
afterAll(async () => {
  if (!mounted) return;
  await ctx.close();
  execFileSync('umount', [storageDir]);
  rmSync(storageDir, { recursive: true, force: true });
});

const wav = () => readFile(join(import.meta.dirname, '__tests__', 'media-fixtures', 'tone.wav'));
const upload = (bytes: Buffer, authorization = owner) => request(app).post(`/media?collection_id=${ctx.collectionId}`).set('Authorization', authorization).set('Content-Type', 'application/octet-stream').send(bytes);
const stored = async () => (await readdir(storageDir)).filter((name) => name !== '.tmp');

(mounted ? describe : describe.skip)('a full STORAGE_DIR', () => {
  it('uploads racing for the last space: one is stored, the others answer 507 in Norwegian, never 500, and no partial file stays in .tmp', async () => {
    const bytes = await wav();
    // 24 KB each on 32 KB: all may pass the free-space check together; only one fits.
    const answers = await Promise.all(members.map((member) => upload(bytes, member)));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 507, 507]);
    for (const refused of answers.filter((a) => a.status === 507)) expect(refused.body).toEqual({ error: 'Lagringsplassen er full; filen ble ikke lagret' });
    expect(await readdir(join(storageDir, '.tmp'))).toEqual([]);
    expect(await stored()).toHaveLength(1);
  });

  it('a file larger than the space left is refused before a byte is written', async () => {
    const res = await upload(await wav());
    expect([res.status, res.body]).toEqual([507, { error: 'Lagringsplassen er full; filen ble ikke lagret' }]);
    expect(await readdir(join(storageDir, '.tmp'))).toEqual([]);
    expect(await stored()).toHaveLength(1);
  });
});
