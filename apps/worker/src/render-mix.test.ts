import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileStore } from '@inntak/files';
import { channelEffects, decodeWav, encodeWav, fileKeyOf, integratedLoudness, MIX_CEILING_DBFS, peakOf, type MediaMetadata } from '@inntak/media';
import { enqueueJob, getJob } from '@inntak/postgres/jobs';
import { createMediaNode } from '@inntak/postgres/media';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { runGovernedOnce } from './__tests__/run-governed-once.js';
import { EspeakSpeechSynthesizer } from './espeak-speech-synthesizer.js';
import { createCollection, createNode, createPerson } from '@inntak/access';

let h: OpenTestDatabase;
let files: LocalFileStore;
let storageDir: string;
let ownerId: string;
let collectionId: string;
const espeak = new EspeakSpeechSynthesizer();

beforeAll(async () => {
  h = await openTestDatabase();
  storageDir = await mkdtemp(join(tmpdir(), 'inntak-mix-'));
  files = new LocalFileStore(storageDir);
  ownerId = (await createPerson(storesOn(h.db).graph, { subject: 'eier' })).id;
  collectionId = (await createCollection(storesOn(h.db).graph, { title: 'Studio', ownerId })).id;
});
afterAll(() => h.dispose());

const sine = (hz: number, amplitude: number, seconds: number, rate: number) =>
  Float32Array.from({ length: Math.round(seconds * rate) }, (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / rate));

async function room(title: string): Promise<string> {
  return (await createNode(storesOn(h.db).graph, { personId: ownerId, isAdmin: false }, { node_kind: 'communication', title, collection_id: collectionId })).id;
}

/** An audio media node of the room whose file holds `wav`, as an upload or TTS leaves it. */
async function audioSource(roomId: string, wav: Uint8Array): Promise<string> {
  const metadata: MediaMetadata = { media_type: 'audio', mime: 'audio/wav', bytes: wav.byteLength, generated: false, regenerable: false, last_accessed_at: new Date().toISOString() };
  const { id } = await createMediaNode(h.db, { ownerId: roomId, title: 'kilde', metadata });
  const temp = await files.writeTemp(fileKeyOf(id, 'audio/wav'), wav);
  await files.commit(temp, fileKeyOf(id, 'audio/wav'));
  return id;
}

async function addChannel(roomId: string, nodeId: string | null, settings: { gain_db?: number; muted?: boolean; offset_ms?: number; effects?: object } = {}) {
  await h.db
    .insertInto('mixer_channels')
    .values({ id: crypto.randomUUID(), room_id: roomId, node_id: nodeId, label: 'kanal', gain_db: settings.gain_db ?? 0, muted: settings.muted ?? false, offset_ms: settings.offset_ms ?? 0, effects: JSON.stringify(settings.effects ?? {}) })
    .execute();
}

async function mixesOf(roomId: string) {
  return h.db
    .selectFrom('edges as e')
    .innerJoin('nodes as n', 'n.id', 'e.target_id')
    .select(['n.id', 'n.title', 'n.metadata'])
    .where('e.source_id', '=', roomId)
    .where('e.edge_type', '=', 'has_media')
    .where(({ eb, ref }) => eb(ref('n.metadata', '->>').key('source_node_id'), '=', roomId))
    .execute();
}

describe('render_mix', () => {
  it('mixes a TTS voice and a music bed into a new audio media node of the room, at the target loudness, never clipping', async () => {
    const roomId = await room('Morgensending');
    const voice = await espeak.synthesize('God morgen, dette er nyhetene fra Inntak.', { voice: 'nb', rate: 175 });
    await addChannel(roomId, await audioSource(roomId, voice), { effects: channelEffects({ high_pass: { cutoff_hz: 100 }, compressor: {} }) });
    await addChannel(roomId, await audioSource(roomId, encodeWav(sine(220, 0.95, 4, 44_100), 44_100)), { gain_db: 6, offset_ms: 500, effects: channelEffects({ fade: { fade_in_ms: 300, fade_out_ms: 1000 } }) });
    await addChannel(roomId, await audioSource(roomId, encodeWav(sine(3000, 0.9, 10, 48_000), 48_000)), { muted: true });
    await addChannel(roomId, null);
    const jobId = await enqueueJob(h.db, 'render_mix', { room_id: roomId, target_lufs: -14 });
    await runGovernedOnce(h, undefined, { files, synthesizer: espeak });

    expect((await getJob(h.db, jobId))?.status).toBe('completed');
    const [mix] = await mixesOf(roomId);
    expect(mix).toBeDefined();
    const metadata = mix!.metadata as MediaMetadata;
    expect(metadata).toMatchObject({ media_type: 'audio', mime: 'audio/wav', generated: true, regenerable: false, channels: 2, target_lufs: -14, sample_rate: 48_000, job_id: jobId });
    expect(mix!.title).toBe('Miks: Morgensending');
    const wav = await readFile(join(storageDir, fileKeyOf(mix!.id, 'audio/wav')));
    expect(metadata.bytes).toBe(wav.byteLength);
    const decoded = decodeWav(new Uint8Array(wav));
    // The muted 10 s channel is not in it: the bed (0.5 + 4 s) is the longest.
    expect(decoded.samples.length / decoded.sampleRate).toBeCloseTo(4.5, 2);
    expect(metadata.duration_s).toBeCloseTo(4.5, 2);
    expect(peakOf(decoded.samples)).toBeLessThanOrEqual(10 ** (MIX_CEILING_DBFS / 20) + 1 / 32768);
    const loudness = integratedLoudness(decoded.samples, decoded.sampleRate);
    expect(loudness).toBeLessThanOrEqual(-14 + 0.1);
    expect(loudness).toBeCloseTo(metadata.loudness_lufs as number, 0);
    // The bed starts at its offset: the first 0.5 s hold only the voice, which is quieter than the bed.
    expect(peakOf(decoded.samples.subarray(0, 0.45 * decoded.sampleRate))).toBeLessThan(peakOf(decoded.samples.subarray(decoded.sampleRate, 2 * decoded.sampleRate)));
  });

  it('fails at once, naming the reason, when every channel is muted or the node is no room; nothing is made', async () => {
    const roomId = await room('Stille');
    await addChannel(roomId, await audioSource(roomId, encodeWav(sine(440, 0.5, 1, 22_050), 22_050)), { muted: true });
    const article = (await createNode(storesOn(h.db).graph, { personId: ownerId, isAdmin: false }, { node_kind: 'content', title: 'Artikkel', collection_id: collectionId })).id;
    const muted = await enqueueJob(h.db, 'render_mix', { room_id: roomId });
    const notRoom = await enqueueJob(h.db, 'render_mix', { room_id: article });
    await runGovernedOnce(h, undefined, { files, synthesizer: espeak });
    expect(await getJob(h.db, muted)).toMatchObject({ status: 'failed', last_error: 'the room has no unmuted channel with a source' });
    expect(await getJob(h.db, notRoom)).toMatchObject({ status: 'failed', last_error: `node ${article} is a content, not a communication room` });
    expect(await mixesOf(roomId)).toEqual([]);
  });

  it('a source whose WAV header claims 100 MHz fails the job permanently on its first attempt, naming the channel and the rate, before anything is decoded; nothing is made (issue 35, finding 4)', async () => {
    // The attack: 12 KB whose header claims 100 MHz, beside an ordinary voice. The mix was made at
    // the highest source rate, so the voice was resampled to 100 MHz on the event loop: minutes
    // blocked, RSS past 1.3 GB, SIGTERM ignored, and the job retried on a fresh worker.
    const roomId = await room('Angrep');
    await addChannel(roomId, await audioSource(roomId, encodeWav(sine(440, 0.5, 1, 22_050), 22_050)));
    const attack = encodeWav(new Float32Array(6000), 44_100);
    new DataView(attack.buffer).setUint32(24, 100_000_000, true);
    await addChannel(roomId, await audioSource(roomId, attack));
    const channel = await h.db.selectFrom('mixer_channels').select('id').where('room_id', '=', roomId).where('node_id', 'is not', null).orderBy('id').execute();
    const jobId = await enqueueJob(h.db, 'render_mix', { room_id: roomId });
    await runGovernedOnce(h, undefined, { files, synthesizer: espeak });
    const job = await getJob(h.db, jobId);
    expect(job).toMatchObject({ status: 'failed', attempts: 1, last_error: expect.stringMatching(/^channel [0-9a-f-]{36}: samplingsfrekvensen er 100000000 Hz; den må være fra 8000 til 192000 Hz$/) });
    expect(channel.map((c) => c.id)).toContain(/^channel (\S+):/.exec(job!.last_error!)![1]);
    expect(await mixesOf(roomId)).toEqual([]);
  });

  it('the mix is decoded and mixed off the event loop (a DSP thread): timers keep firing while it is made, and the job completes', async () => {
    // Two minutes of 44.1 kHz with effects: about 5 s of DSP on this machine, which used to run
    // synchronously (no heartbeat, no SIGTERM, no other job meanwhile).
    const roomId = await room('Lang');
    await addChannel(roomId, await audioSource(roomId, encodeWav(sine(220, 0.5, 120, 44_100), 44_100)), { effects: channelEffects({ compressor: {}, high_pass: {} }) });
    const jobId = await enqueueJob(h.db, 'render_mix', { room_id: roomId });
    let last = performance.now();
    let longestGap = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
    }, 10);
    try {
      await runGovernedOnce(h, undefined, { files, synthesizer: espeak });
    } finally {
      clearInterval(timer);
    }
    expect((await getJob(h.db, jobId))?.status).toBe('completed');
    expect(await mixesOf(roomId)).toHaveLength(1);
    // Generous: only a loop held for the whole DSP (seconds) fails it.
    expect(longestGap).toBeLessThan(2000);
  });

  it('a bad payload fails naming the field', async () => {
    const jobId = await enqueueJob(h.db, 'render_mix', { room_id: await room('Feil'), target_lufs: 3 });
    await runGovernedOnce(h, undefined, { files, synthesizer: espeak });
    expect((await getJob(h.db, jobId))?.last_error).toMatch(/^invalid render_mix payload: target_lufs: /);
  });
});
