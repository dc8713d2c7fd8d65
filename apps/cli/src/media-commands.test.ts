import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { uuidv7 } from '@inntak/core';
import { LocalFileStore } from '@inntak/files';
import { fileKeyOf, parseWav, type MediaMetadata } from '@inntak/media';
import { createMediaNode } from '@inntak/postgres/media';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { runCli } from './__tests__/run-cli.js';
import { createCollection, createNode, createPerson } from '@inntak/access';

// The CLI and the worker run from their builds (npm test builds first), as a user would run them.
const WORKER = fileURLToPath(new URL('../../worker/dist/main.js', import.meta.url));

let h: OpenTestDatabase;
let storageDir: string;
let ownerId: string;
let collectionId: string;

beforeAll(async () => {
  h = await openTestDatabase();
  storageDir = await mkdtemp(join(tmpdir(), 'inntak-cli-media-'));
  ownerId = (await createPerson(storesOn(h.db).graph, { subject: 'eier' })).id;
  collectionId = (await createCollection(storesOn(h.db).graph, { title: 'Nyheter', ownerId })).id;
});
afterAll(() => h.dispose());

const env = (overrides: Record<string, string> = {}) => ({ ...process.env, DATABASE_URL: h.url, STORAGE_DIR: storageDir, LOG_LEVEL: 'error', ...overrides });

function inntak(...args: string[]): Promise<{ code: number | null; json: Record<string, unknown> }> {
  return inntakWith({}, ...args);
}

function inntakWith(overrides: Record<string, string>, ...args: string[]) {
  return runCli(args, env(overrides));
}

async function article(title: string, content: string): Promise<string> {
  return (await createNode(storesOn(h.db).graph, { personId: ownerId, isAdmin: false }, { node_kind: 'content', title, content, collection_id: collectionId })).id;
}

describe('inntak prune', () => {
  it('a STORAGE_DIR under /proc fails at once with a JSON error naming STORAGE_DIR (it used to spin for ever)', async () => {
    // A CLI that spins never answers: the test's timeout tells it from one that fails.
    const { code, json } = await inntakWith({ STORAGE_DIR: '/proc/inntak-media' }, 'prune', '--dry-run');
    expect(code).not.toBe(0);
    expect(json.error).toBe('STORAGE_DIR must be a directory this user can create and write; /proc/inntak-media: ENOENT');
  }, 30_000);

  it('--dry-run prints what it would delete and deletes nothing; without it the row and the file go', async () => {
    const files = new LocalFileStore(storageDir);
    const id = uuidv7();
    const key = fileKeyOf(id, 'video/mp4');
    await files.commit(await files.writeTemp(key, new Uint8Array(2048)), key);
    const old = new Date(Date.now() - 20 * 86_400_000);
    const metadata: MediaMetadata = { media_type: 'video', mime: 'video/mp4', bytes: 2048, generated: false, regenerable: false, last_accessed_at: old.toISOString() };
    await createMediaNode(h.db, { id, ownerId: await article('Video', 'x'), title: null, metadata });
    await h.db.updateTable('nodes').set({ created_at: old }).where('id', '=', id).execute();

    const dry = await inntak('prune', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.json).toEqual({ mode: 'dry_run', disk_percent: expect.any(Number), deleted: [{ id, media_type: 'video', bytes: 2048, reason: 'expired' }], freed_bytes: 2048 });
    expect(await files.size(key)).toBe(2048);

    const real = await inntak('prune');
    expect(real.json).toMatchObject({ mode: 'run', deleted: [{ id, reason: 'expired' }], freed_bytes: 2048 });
    expect(await h.db.selectFrom('nodes').select('id').where('id', '=', id).execute()).toEqual([]);
    expect(await files.size(key)).toBeNull();
  });
});

describe('inntak tts', () => {
  let worker: ChildProcess;
  beforeAll(() => {
    worker = spawn(process.execPath, [WORKER], { env: { ...env(), WORKER_CRONTAB: '', WORKER_POLL_INTERVAL_MS: '100' }, stdio: 'ignore' });
  });
  afterAll(async () => {
    worker.kill('SIGTERM');
    await new Promise((resolve) => worker.once('exit', resolve));
  });

  it('queues tts_generate, waits for the worker and prints the media id of a playable WAV', async () => {
    const nodeId = await article('Været', 'Det blir sol og ti grader i Oslo i morgen.');
    const { code, json } = await inntak('tts', '--node', nodeId);
    expect(code).toBe(0);
    expect(json).toEqual({ job_id: expect.any(Number), media_id: expect.any(String), bytes: expect.any(Number), duration_s: expect.any(Number) });
    const wav = parseWav(await readFile(join(storageDir, fileKeyOf(json.media_id as string, 'audio/wav'))));
    expect(wav.durationS).toBeGreaterThan(1);
    expect(wav.durationS).toBeCloseTo(json.duration_s as number, 2);
  }, 60_000);

  it('a node that does not exist exits 2 with a JSON error', async () => {
    const { code, json } = await inntak('tts', '--node', uuidv7());
    expect(code).toBe(2);
    expect(json.error).toMatch(/does not exist/);
  });
});

describe('inntak media add', () => {
  it('uploads a file into a collection as POST /media does: sniffed type, duration, checksum, the file in place', async () => {
    const { writeFile } = await import('node:fs/promises');
    const { encodeWav } = await import('@inntak/media');
    const path = join(storageDir, '..', `innspilling-${Date.now()}.bin`);
    const wav = encodeWav(Float32Array.from({ length: 8000 }, (_, i) => 0.3 * Math.sin(i / 5)), 8000);
    await writeFile(path, wav);
    const { code, json } = await inntak('media', 'add', '--collection', collectionId, '--file', path, '--title', 'Innspilling');
    expect(code).toBe(0);
    expect(json).toMatchObject({ title: 'Innspilling', metadata: { media_type: 'audio', mime: 'audio/wav', bytes: wav.byteLength, duration_s: 1, transcribed: false }, transcription_job_id: expect.any(Number) });
    expect(new Uint8Array(await readFile(join(storageDir, fileKeyOf(json.id as string, 'audio/wav'))))).toEqual(wav);
    const text = join(storageDir, '..', `notat-${Date.now()}.txt`);
    await writeFile(text, 'bare tekst');
    const refused = await inntak('media', 'add', '--collection', collectionId, '--file', text);
    expect(refused.code).toBe(1);
    expect(refused.json.error).toMatch(/lyd \(WAV, MP3, Ogg\/Opus, FLAC\)/);
  });
});
