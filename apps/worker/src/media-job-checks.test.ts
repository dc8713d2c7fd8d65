import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATOR, createCollection, createNode, createPerson, grantAccess, revokeAccess } from '@inntak/access';
import { LocalFileStore } from '@inntak/files';
import { DEFAULT_SPEECH_LIMITS, encodeWav, fileKeyOf, generateSpeech, MixdownError, queueMixdown, renderMix, SpeechLimitError, type MediaMetadata } from '@inntak/media';
import { createMediaNode, PostgresMediaStore, postgresMixdownCatalog, postgresSpeechCatalog } from '@inntak/postgres/media';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { EspeakSpeechSynthesizer } from './espeak-speech-synthesizer.js';

// The checks tts_generate and render_mix make in the transaction that creates their media node
// (docs/security.md, "Third attack"): the collection quota under the per-scope lock POST /media
// takes, and the mix's asker's access as it is when the job runs.

let h: OpenTestDatabase;
let files: LocalFileStore;
let ownerId: string;
const espeak = new EspeakSpeechSynthesizer();
const owner = () => ({ personId: ownerId, isAdmin: false });
const never = new AbortController().signal;

beforeAll(async () => {
  h = await openTestDatabase();
  files = new LocalFileStore(await mkdtemp(join(tmpdir(), 'inntak-media-checks-')));
  ownerId = (await createPerson(storesOn(h.db).graph, { subject: 'eier' })).id;
});
afterAll(() => h.dispose());

const tone = (seconds: number) => encodeWav(Float32Array.from({ length: seconds * 8000 }, (_, i) => 0.5 * Math.sin((2 * Math.PI * 440 * i) / 8000)), 8000);

async function audioSource(ownerNode: string, wav: Uint8Array): Promise<string> {
  const metadata: MediaMetadata = { media_type: 'audio', mime: 'audio/wav', bytes: wav.byteLength, generated: false, regenerable: false, last_accessed_at: new Date().toISOString() };
  const { id } = await createMediaNode(h.db, { ownerId: ownerNode, title: 'kilde', metadata });
  await files.commit(await files.writeTemp(fileKeyOf(id, 'audio/wav'), wav), fileKeyOf(id, 'audio/wav'));
  return id;
}

async function roomWithChannels(collectionId: string, sources: string[]): Promise<string> {
  const roomId = (await createNode(storesOn(h.db).graph, owner(), { node_kind: 'communication', title: 'Rom', collection_id: collectionId })).id;
  for (const nodeId of sources) {
    await h.db.insertInto('mixer_channels').values({ id: crypto.randomUUID(), room_id: roomId, node_id: nodeId, label: 'kanal', gain_db: 0, muted: false, offset_ms: 0, effects: '{}' }).execute();
  }
  return roomId;
}

const generatedMedia = async (collectionId: string) =>
  (await h.db.selectFrom('edges as e').innerJoin('nodes as n', 'n.id', 'e.target_id').innerJoin('edges as b', 'b.source_id', 'e.source_id')
    .select('n.id').where('e.edge_type', '=', 'has_media').where('b.edge_type', '=', 'belongs_to').where('b.target_id', '=', collectionId)
    .where(({ eb, ref }) => eb(ref('n.metadata', '->>').key('generated'), '=', 'true')).execute()).map((r) => r.id);
const tempFiles = async () => (await files.list()).filter((f) => f.tempName !== undefined);

describe('MEDIA_BYTES_PER_COLLECTION in the worker', () => {
  it('two tts_generate jobs finishing together that would pass the quota only one at a time: exactly one makes its media, the other fails naming the limit and leaves no file', async () => {
    const text = 'Kort melding fra redaksjonen.';
    // One reading's size, measured in a collection of its own.
    const probe = (await createCollection(storesOn(h.db).graph, { title: 'Måling', ownerId })).id;
    const probed = await generateSpeech({ catalog: postgresSpeechCatalog(h.db), files, synthesizer: espeak }, { node_id: (await createNode(storesOn(h.db).graph, owner(), { node_kind: 'content', title: null, content: text, collection_id: probe })).id, voice: 'nb', rate: 175 }, never);
    const collectionId = (await createCollection(storesOn(h.db).graph, { title: 'Full', ownerId })).id;
    const nodes = [
      (await createNode(storesOn(h.db).graph, owner(), { node_kind: 'content', title: null, content: text, collection_id: collectionId })).id,
      (await createNode(storesOn(h.db).graph, owner(), { node_kind: 'content', title: null, content: text, collection_id: collectionId })).id,
    ];
    const limits = { ...DEFAULT_SPEECH_LIMITS, collectionMediaBytes: Math.floor(probed.bytes * 1.5) };
    const results = await Promise.allSettled(nodes.map((node_id) => generateSpeech({ catalog: postgresSpeechCatalog(h.db), files, synthesizer: espeak, limits }, { node_id, voice: 'nb', rate: 175 }, never)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(SpeechLimitError);
    expect((refused.reason as Error).message).toContain('MEDIA_BYTES_PER_COLLECTION');
    expect(await generatedMedia(collectionId)).toHaveLength(1);
    expect(await tempFiles()).toEqual([]);
  });

  it('two render_mix jobs finishing together into one collection with room for one mix: exactly one is made, the other fails and leaves no file', async () => {
    const probe = (await createCollection(storesOn(h.db).graph, { title: 'Måling', ownerId })).id;
    const mixBytes = (await renderMix({ catalog: postgresMixdownCatalog(h.db), files }, { room_id: await roomWithChannels(probe, [await audioSource(probe, tone(1))]) }, never)).bytes;
    const collectionId = (await createCollection(storesOn(h.db).graph, { title: 'Studio', ownerId })).id;
    const rooms = [await roomWithChannels(collectionId, [await audioSource(collectionId, tone(1))]), await roomWithChannels(collectionId, [await audioSource(collectionId, tone(1))])];
    const used = await postgresSpeechCatalog(h.db).collectionMediaBytes(collectionId);
    const quota = used + Math.floor(mixBytes * 1.5);
    const results = await Promise.allSettled(rooms.map((room_id) => renderMix({ catalog: postgresMixdownCatalog(h.db), files, collectionMediaBytes: quota }, { room_id }, never)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(MixdownError);
    expect((refused.reason as Error).message).toMatch(/MEDIA_BYTES_PER_COLLECTION is \d+$/);
    expect(await generatedMedia(collectionId)).toHaveLength(1);
    expect(await tempFiles()).toEqual([]);
  });
});

describe('render_mix checks its asker again when it runs', () => {
  it('a source the asker could read when queueing but not when the job runs: refused, no media node, no file; readable again, the mix is made', async () => {
    const collectionId = (await createCollection(storesOn(h.db).graph, { title: 'Sending', ownerId })).id;
    const kept = (await createCollection(storesOn(h.db).graph, { title: 'Arkiv', ownerId })).id;
    const guestId = (await createPerson(storesOn(h.db).graph, { subject: 'gjest' })).id;
    await grantAccess(storesOn(h.db).graph, OPERATOR, { subject_id: guestId, object_id: collectionId, access: 'member' });
    await grantAccess(storesOn(h.db).graph, OPERATOR, { subject_id: guestId, object_id: kept, access: 'reader' });
    const roomId = await roomWithChannels(collectionId, [await audioSource(collectionId, tone(1)), await audioSource(kept, tone(2))]);
    const jobId = await queueMixdown(new PostgresMediaStore(h.db), { personId: guestId, isAdmin: false }, { room_id: roomId });
    const { payload } = await h.db.selectFrom('job_queue').select('payload').where('id', '=', String(jobId)).executeTakeFirstOrThrow();
    const request = payload as { room_id: string; requested_by?: string };
    expect(request.requested_by).toBe(guestId);

    await revokeAccess(storesOn(h.db).graph, OPERATOR, { subject_id: guestId, object_id: kept });
    const run = () => renderMix({ catalog: postgresMixdownCatalog(h.db), files }, request, never);
    await expect(run()).rejects.toThrow(new MixdownError("the person who asked for the mix may no longer read every channel's source"));
    expect(await generatedMedia(collectionId)).toEqual([]);
    expect(await tempFiles()).toEqual([]);

    await grantAccess(storesOn(h.db).graph, OPERATOR, { subject_id: guestId, object_id: kept, access: 'reader' });
    await revokeAccess(storesOn(h.db).graph, OPERATOR, { subject_id: guestId, object_id: collectionId });
    await expect(run()).rejects.toThrow(new MixdownError('the person who asked for the mix is no longer a member of the room'));
    expect(await generatedMedia(collectionId)).toEqual([]);

    await grantAccess(storesOn(h.db).graph, OPERATOR, { subject_id: guestId, object_id: collectionId, access: 'member' });
    expect((await run()).channels).toBe(2);
    expect(await generatedMedia(collectionId)).toHaveLength(1);
  });
});
