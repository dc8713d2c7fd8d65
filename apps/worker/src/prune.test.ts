import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { parseCrontab, type JobHelpers } from 'graphile-worker';
import { uuidv7, type Logger } from '@inntak/core';
import { LocalFileStore } from '@inntak/files';
import type { DiskProbe } from '@inntak/jobs';
import { fileKeyOf, generateSpeech, sweepOrphans, type FileStore, type MediaMetadata, type MediaType } from '@inntak/media';
import { insertEdge } from '@inntak/postgres/graph';
import { createMediaNode, deleteMediaNode, latestPruneRun, postgresPruneCatalog, postgresSpeechCatalog } from '@inntak/postgres/media';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { CRONTAB_FILE } from './config.js';
import { EspeakSpeechSynthesizer } from './espeak-speech-synthesizer.js';
import { prune } from './tasks/prune.js';
import { createCollection, createNode, createPerson } from '@inntak/access';

/** A probe the test sets: the disk port's second adapter. */
class FixedProbe implements DiskProbe {
  usedPercent = 50;
  async measure() {
    return { totalBytes: 1_000_000, freeBytes: 1_000_000 - this.usedPercent * 10_000 };
  }
}

const logs: Array<{ message: string; meta?: Record<string, unknown> }> = [];
const logger: Logger = { error() {}, warn() {}, info: (message, meta) => logs.push({ message, meta }), debug() {} };

let h: OpenTestDatabase;
let ownerId: string;
let collectionId: string;
let dir: string;
let files: LocalFileStore;
const probe = new FixedProbe();

beforeAll(async () => {
  h = await openTestDatabase();
  ownerId = (await createPerson(storesOn(h.db).graph, { subject: 'eier' })).id;
  collectionId = (await createCollection(storesOn(h.db).graph, { title: 'Nyheter', ownerId })).id;
});
afterAll(() => h.dispose());
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inntak-prune-'));
  files = new LocalFileStore(dir);
  probe.usedPercent = 50;
  await sql`delete from nodes where node_kind = 'media'`.execute(h.db);
});

async function owner(): Promise<string> {
  return (await createNode(storesOn(h.db).graph, { personId: ownerId, isAdmin: false }, { node_kind: 'content', title: 'Sak', collection_id: collectionId })).id;
}

/** A media node with its file in place, created `ageDays` ago. */
async function stored(type: MediaType, ageDays: number, extra: Partial<MediaMetadata> = {}, ownerNode?: string): Promise<string> {
  const mime = { audio: 'audio/wav', image: 'image/png', video: 'video/mp4', text: 'text/plain' }[type];
  const id = uuidv7();
  const key = fileKeyOf(id, mime);
  const temp = await files.writeTemp(key, new Uint8Array(100));
  const createdAt = new Date(Date.now() - ageDays * 86_400_000);
  const metadata: MediaMetadata = { media_type: type, mime, bytes: 100, generated: false, regenerable: false, last_accessed_at: createdAt.toISOString(), ...extra };
  await createMediaNode(h.db, { id, ownerId: ownerNode ?? (await owner()), title: null, metadata });
  await files.commit(temp, key);
  await h.db.updateTable('nodes').set({ created_at: createdAt }).where('id', '=', id).execute();
  return id;
}

const mediaIds = async () => (await h.db.selectFrom('nodes').select('id').where('node_kind', '=', 'media').execute()).map((r) => r.id).sort();
const run = (trigger = 'schedule') => prune({ pruneCatalog: postgresPruneCatalog(h.db), probe, files, storageDir: dir, logger })({ trigger }, {} as JobHelpers);

describe('storage pruning', () => {
  it('deletes expired media, row and file, keeps the rest, and logs the run with what, why and bytes freed', async () => {
    const old = await stored('audio', 31);
    const fresh = await stored('audio', 2);
    const text = await stored('text', 1000);
    await run();

    expect(await mediaIds()).toEqual([fresh, text].sort());
    expect(await readdir(dir)).toEqual(expect.arrayContaining([fileKeyOf(fresh, 'audio/wav'), fileKeyOf(text, 'text/plain')]));
    expect(await readdir(dir)).not.toContain(fileKeyOf(old, 'audio/wav'));
    const last = await latestPruneRun(h.db);
    expect(last).toMatchObject({ mode: 'run', trigger: 'schedule', disk_percent: 50, deleted: [{ id: old, media_type: 'audio', bytes: 100, reason: 'expired' }], freed_bytes: 100 });
    expect(logs.find((l) => l.message === 'pruning run')?.meta).toMatchObject({ tag: 'prune', freed_bytes: 100 });
  });

  it('a published_in edge from the owner keeps its media; at 95 % everything else but text goes', async () => {
    const publishedOwner = await owner();
    const publication = (await createNode(storesOn(h.db).graph, { personId: ownerId, isAdmin: false }, { node_kind: 'content', title: 'Avisa' })).id;
    await h.db.transaction().execute((trx) => insertEdge(trx, { source_id: publishedOwner, target_id: publication, edge_type: 'published_in', created_by: ownerId }));
    const published = await stored('audio', 400, {}, publishedOwner);
    const unpublished = await stored('image', 0);
    const text = await stored('text', 0);
    probe.usedPercent = 96;
    await run();
    expect(await mediaIds()).toEqual([published, text].sort());
    expect((await latestPruneRun(h.db))?.deleted).toEqual([{ id: unpublished, media_type: 'image', bytes: 100, reason: 'emergency' }]);
  });

  it('at 85 % generated content that can be regenerated is deleted', async () => {
    const tts = await stored('audio', 0, { generated: true, regenerable: true });
    const upload = await stored('audio', 0);
    probe.usedPercent = 86;
    await run();
    expect(await mediaIds()).toEqual([upload]);
    expect((await latestPruneRun(h.db))?.deleted).toEqual([{ id: tts, media_type: 'audio', bytes: 100, reason: 'regenerable' }]);
  });

  it('the every-15-minutes entry runs only while the disk is at 85 % or more', async () => {
    const tts = await stored('audio', 0, { generated: true, regenerable: true });
    const before = await latestPruneRun(h.db);
    probe.usedPercent = 80;
    await run('disk_high');
    expect(await latestPruneRun(h.db)).toEqual(before);
    probe.usedPercent = 85;
    await run('disk_high');
    expect(await latestPruneRun(h.db)).toMatchObject({ trigger: 'disk_high', deleted: [{ id: tts, reason: 'regenerable' }] });
  });

  it('the crontab prunes every 6 hours, and every 15 minutes for a full disk', () => {
    const entries = parseCrontab(readFileSync(CRONTAB_FILE, 'utf8')).filter((e) => e.task === 'prune');
    expect(entries.map((e) => e.payload)).toEqual([{ trigger: 'schedule' }, { trigger: 'disk_high' }]);
    expect(entries[0]!.match).toEqual(expect.any(Function));
  });
});

describe('files and rows never disagree', () => {
  it('a crash after the commit, before the rename, is finished by the sweep: the file goes in place', async () => {
    const id = uuidv7();
    const key = fileKeyOf(id, 'audio/wav');
    const temp = await files.writeTemp(key, new Uint8Array(10));
    await createMediaNode(h.db, { id, ownerId: await owner(), title: null, metadata: { media_type: 'audio', mime: 'audio/wav', bytes: 10, generated: false, regenerable: false, last_accessed_at: new Date().toISOString() } });
    // (crash: no rename)
    expect(await files.size(key)).toBeNull();
    const actions = await sweepOrphans({ catalog: postgresPruneCatalog(h.db), files }, { dryRun: false, now: new Date() });
    expect(actions).toEqual([{ kind: 'place', tempName: temp, key }]);
    expect(await files.size(key)).toBe(10);
  });

  it('a crash after the row was deleted, before the file, leaves an orphan the sweep removes', async () => {
    const id = await stored('audio', 0);
    await deleteMediaNode(h.db, id);
    // (crash: the file stays)
    const key = fileKeyOf(id, 'audio/wav');
    expect(await files.size(key)).toBe(100);
    await sweepOrphans({ catalog: postgresPruneCatalog(h.db), files }, { dryRun: false, now: new Date() });
    expect(await files.size(key)).toBeNull();
  });

  it('a temporary file without a row is left while it may be in flight, and removed after the grace period', async () => {
    const key = fileKeyOf(uuidv7(), 'audio/wav');
    const temp = await files.writeTemp(key, new Uint8Array(10));
    const catalog = postgresPruneCatalog(h.db);
    expect(await sweepOrphans({ catalog, files }, { dryRun: false, now: new Date() })).toEqual([]);
    const hourAgo = new Date(Date.now() - 61 * 60_000);
    await utimes(join(dir, '.tmp', temp), hourAgo, hourAgo);
    expect(await sweepOrphans({ catalog, files }, { dryRun: false, now: new Date() })).toEqual([{ kind: 'discard', tempName: temp, key }]);
    expect(await readdir(join(dir, '.tmp'))).toEqual([]);
  });

  it('when the rename fails after the commit, the row is removed again: never a row without its file', async () => {
    const nodeId = await owner();
    await h.db.updateTable('nodes').set({ title: 'Kort' }).where('id', '=', nodeId).execute();
    const failing: FileStore = Object.assign(Object.create(files) as FileStore, {
      commit: async () => {
        throw new Error('disk full');
      },
    });
    await expect(
      generateSpeech({ catalog: postgresSpeechCatalog(h.db), files: failing, synthesizer: new EspeakSpeechSynthesizer() }, { node_id: nodeId, voice: 'nb', rate: 175 }, new AbortController().signal),
    ).rejects.toThrow('disk full');
    expect(await mediaIds()).toEqual([]);
    expect(await readdir(dir, { recursive: true })).toEqual(['.tmp']);
  });
});
