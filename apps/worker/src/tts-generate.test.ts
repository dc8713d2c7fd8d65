import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtemp, readFile, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import winston from 'winston';
import { OPERATOR, createCollection, createNode, createPerson, grantAccess } from '@inntak/access';
import { LocalFileStore } from '@inntak/files';
import { DEFAULT_SPEECH_LIMITS, fileKeyOf, parseWav, splitForSpeech, type MediaMetadata, type SpeechOptions, type SpeechSynthesizer } from '@inntak/media';
import { cancelJob, enqueueJob, getJob } from '@inntak/postgres/jobs';
import { createMediaNode } from '@inntak/postgres/media';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { runGovernedOnce } from './__tests__/run-governed-once.js';
import { waitFor } from './__tests__/worker-process.js';
import { loadConfig } from './config.js';
import { EspeakSpeechSynthesizer } from './espeak-speech-synthesizer.js';
import { startWorker } from './worker.js';

let h: OpenTestDatabase;
let storageDir: string;
let files: LocalFileStore;
let ownerId: string;
let readerId: string;
let collectionId: string;
const espeak = new EspeakSpeechSynthesizer();

beforeAll(async () => {
  h = await openTestDatabase();
  storageDir = await mkdtemp(join(tmpdir(), 'inntak-media-'));
  files = new LocalFileStore(storageDir);
  ownerId = (await createPerson(storesOn(h.db).graph, { subject: 'eier' })).id;
  readerId = (await createPerson(storesOn(h.db).graph, { subject: 'leser' })).id;
  collectionId = (await createCollection(storesOn(h.db).graph, { title: 'Nyheter', ownerId })).id;
  await grantAccess(storesOn(h.db).graph, OPERATOR, { subject_id: readerId, object_id: collectionId, access: 'reader' });
});
afterAll(() => h.dispose());

async function article(title: string | null, content: string | null, inCollection = collectionId): Promise<string> {
  return (await createNode(storesOn(h.db).graph, { personId: ownerId, isAdmin: false }, { node_kind: 'content', title, content, collection_id: inCollection })).id;
}

async function mediaOf(nodeId: string) {
  return h.db
    .selectFrom('edges as e')
    .innerJoin('nodes as n', 'n.id', 'e.target_id')
    .select(['n.id', 'n.node_kind', 'n.metadata', 'n.visibility', 'e.system'])
    .where('e.source_id', '=', nodeId)
    .where('e.edge_type', '=', 'has_media')
    .execute();
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

describe('tts_generate', () => {
  it('reads a Norwegian sentence aloud into a valid WAV whose duration is plausible for its length', async () => {
    const title = 'Ny bru over fjorden';
    const content = 'Den nye brua over fjorden åpner for trafikk i morgen tidlig, melder vegvesenet.';
    const nodeId = await article(title, content);
    const jobId = await enqueueJob(h.db, 'tts_generate', { node_id: nodeId });
    await runGovernedOnce(h, undefined, { files, synthesizer: espeak });

    expect(await getJob(h.db, jobId)).toMatchObject({ status: 'completed' });
    const [media] = await mediaOf(nodeId);
    expect(media).toMatchObject({ node_kind: 'media', system: true });
    const metadata = media!.metadata as MediaMetadata;
    expect(metadata).toMatchObject({ media_type: 'audio', mime: 'audio/wav', generated: true, regenerable: true, source_node_id: nodeId, voice: 'nb', rate: 175, job_id: jobId });
    const bytes = await readFile(join(storageDir, fileKeyOf(media!.id, 'audio/wav')));
    expect(bytes.byteLength).toBe(metadata.bytes);
    const wav = parseWav(bytes);
    expect(wav).toMatchObject({ sampleRate: 22050, channels: 1, bitsPerSample: 16 });
    // 175 words a minute is about 3 words a second; allow for pauses and a quick reader.
    const spoken = words(`${title} ${content}`);
    expect(wav.durationS).toBeGreaterThan(spoken / 6);
    expect(wav.durationS).toBeLessThan(spoken);
    expect(metadata.duration_s).toBeCloseTo(wav.durationS, 2);
    expect(Date.parse(metadata.last_accessed_at)).not.toBeNaN();
  });

  it("the media node gets its owner's access rows: whoever may read the article may read its audio", async () => {
    const nodeId = await article('Tilgang', 'Lyd arver tilgangen til artikkelen.');
    await enqueueJob(h.db, 'tts_generate', { node_id: nodeId });
    await runGovernedOnce(h, undefined, { files, synthesizer: espeak });
    const [media] = await mediaOf(nodeId);
    const rows = await h.db.selectFrom('node_access').select(['subject_id', 'access']).where('object_id', '=', media!.id).orderBy('access').execute();
    expect(rows).toEqual([
      { subject_id: readerId, access: 'reader' },
      { subject_id: ownerId, access: 'owner' },
    ]);
  });

  it('a long text is synthesized in pieces and joined into one WAV', async () => {
    const sentence = 'Kommunestyret vedtok i kveld et nytt budsjett for skolene i bydelen. ';
    const content = sentence.repeat(14).trim();
    const counting = new CountingSynthesizer(espeak);
    const nodeId = await article(null, content);
    await enqueueJob(h.db, 'tts_generate', { node_id: nodeId, rate: 260 });
    await runGovernedOnce(h, undefined, { files, synthesizer: counting });

    expect(counting.texts.length).toBeGreaterThanOrEqual(3);
    expect(counting.texts.join(' ')).toBe(content);
    const [media] = await mediaOf(nodeId);
    const wav = parseWav(await readFile(join(storageDir, fileKeyOf(media!.id, 'audio/wav'))));
    expect(wav.durationS).toBeCloseTo(counting.seconds, 1);
    expect(wav.durationS).toBeGreaterThan(words(content) / 8);
    expect(wav.durationS).toBeLessThan(words(content) / 2);
  });

  it('a node with nothing to read fails permanently, at once', async () => {
    const nodeId = await article(null, null);
    const jobId = await enqueueJob(h.db, 'tts_generate', { node_id: nodeId });
    await runGovernedOnce(h, undefined, { files, synthesizer: espeak });
    expect(await getJob(h.db, jobId)).toMatchObject({ status: 'failed', attempts: 1, last_error: `node ${nodeId} has no title or content to read` });
  });

  it('a cancelled job leaves no file and no node', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inntak-media-cancel-'));
    const text = 'Dette er en lang tekst som skal avbrytes. '.repeat(40).trim();
    const nodeId = await article(null, text);
    const jobId = await enqueueJob(h.db, 'tts_generate', { node_id: nodeId });
    // The real engine; after the first piece the job is cancelled through the admin path.
    const cancelling = new CountingSynthesizer(espeak, async () => {
      await cancelJob(h.db, jobId);
    });
    const config = loadConfig({ DATABASE_URL: h.url, STORAGE_DIR: dir, WORKER_CRONTAB: '', WORKER_POLL_INTERVAL_MS: '50', JOB_DEFER_MS: '30', LIVE_ROOM_CACHE_MS: '0' }, []);
    const worker = await startWorker(config, winston.createLogger({ silent: true }), { synthesizer: cancelling });
    try {
      const job = await waitFor(async () => {
        const j = await getJob(h.db, jobId);
        return j.status === 'cancelled' ? j : undefined;
      }, 20_000);
      expect(job.status).toBe('cancelled');
    } finally {
      // No sleep to let the body stop: stop() waits for the running body, so whatever it would
      // still make is made by the time it settles.
      await worker.stop();
    }
    // The cancel arrives by NOTIFY while the next piece may already have started; the pieces
    // after that are never read.
    expect(cancelling.texts.length).toBeLessThan(splitForSpeech(text).length);
    expect(await mediaOf(nodeId)).toEqual([]);
    expect(await readdir(dir, { recursive: true })).toEqual(expect.not.arrayContaining([expect.stringMatching(/\.wav/)]));
  });
});

describe('tts_generate limits (issue 22): the job fails, naming the limit, and leaves no file and no node', () => {
  const storedFiles = async (dir: string) => (await readdir(dir, { recursive: true })).filter((name) => name.includes('.wav'));

  it('a text longer than TTS_MAX_TEXT_CHARS fails at once, before anything is synthesized', async () => {
    const counting = new CountingSynthesizer(espeak);
    const nodeId = await article(null, 'Dette er en setning. '.repeat(10).trim());
    const jobId = await enqueueJob(h.db, 'tts_generate', { node_id: nodeId });
    await runGovernedOnce(h, undefined, { files, synthesizer: counting, speechLimits: { ...DEFAULT_SPEECH_LIMITS, maxTextChars: 100 } });
    expect(await getJob(h.db, jobId)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'the text is 209 characters; TTS_MAX_TEXT_CHARS is 100' });
    expect(counting.texts).toEqual([]);
    expect(await mediaOf(nodeId)).toEqual([]);
  });

  it('the attack, 19,666 characters at 80 wpm (an orchestration queues it without the API), fails by its estimated audio before synthesis', async () => {
    const counting = new CountingSynthesizer(espeak);
    const nodeId = await article(null, 'Lang sak med mange ord. '.repeat(820).slice(0, 19_666).trim());
    const jobId = await enqueueJob(h.db, 'tts_generate', { node_id: nodeId, rate: 80 });
    await runGovernedOnce(h, undefined, { files, synthesizer: counting });
    expect(await getJob(h.db, jobId)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'the audio would be about 2459 s; TTS_MAX_AUDIO_SECONDS is 1200' });
    expect(counting.texts).toEqual([]);
    expect(await mediaOf(nodeId)).toEqual([]);
  });

  it('audio is counted as it is made: an engine slower than the estimate is stopped once it passes TTS_MAX_AUDIO_SECONDS', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inntak-media-long-'));
    // An engine that reads every piece (of 4) as 30 s of audio; the estimate for this text is about 28 s.
    const drawling = new CountingSynthesizer({ synthesize: async () => silentWav(30) });
    const nodeId = await article(null, 'Kort setning her. '.repeat(70).trim());
    const jobId = await enqueueJob(h.db, 'tts_generate', { node_id: nodeId, rate: 450 });
    await runGovernedOnce(h, undefined, { files: new LocalFileStore(dir), synthesizer: drawling, speechLimits: { ...DEFAULT_SPEECH_LIMITS, maxAudioSeconds: 60 } });
    expect(await getJob(h.db, jobId)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'the audio would be about 90 s; TTS_MAX_AUDIO_SECONDS is 60' });
    expect(drawling.texts).toHaveLength(3);
    expect(await mediaOf(nodeId)).toEqual([]);
    expect(await storedFiles(dir)).toEqual([]);
  });

  it("a collection whose media would pass MEDIA_BYTES_PER_COLLECTION gets no more speech; another collection does", async () => {
    const full = (await createCollection(storesOn(h.db).graph, { title: 'Full', ownerId })).id;
    const earlier = await article('Tidligere', null, full);
    const metadata: MediaMetadata = { media_type: 'audio', mime: 'audio/wav', bytes: 990_000, generated: true, regenerable: true, last_accessed_at: new Date().toISOString() };
    await createMediaNode(h.db, { ownerId: earlier, title: 'Opplesning', metadata });
    const roomy = (await createCollection(storesOn(h.db).graph, { title: 'Romslig', ownerId })).id;
    const refused = await article('Ny sak', 'Den får ikke plass.', full);
    const elsewhere = await article('Ny sak', 'Den får plass.', roomy);
    const refusedJob = await enqueueJob(h.db, 'tts_generate', { node_id: refused });
    const acceptedJob = await enqueueJob(h.db, 'tts_generate', { node_id: elsewhere });
    await runGovernedOnce(h, undefined, { files, synthesizer: espeak, speechLimits: { ...DEFAULT_SPEECH_LIMITS, collectionMediaBytes: 1_000_000 } });
    expect(await getJob(h.db, refusedJob)).toMatchObject({ status: 'failed', attempts: 1, last_error: expect.stringMatching(/^the collection's media would reach \d+ bytes; MEDIA_BYTES_PER_COLLECTION is 1000000$/) });
    expect(await mediaOf(refused)).toEqual([]);
    expect(await getJob(h.db, acceptedJob)).toMatchObject({ status: 'completed' });
  });
});

/** A PCM WAV of silence as eSpeak NG writes it (22 050 Hz mono 16-bit). */
function silentWav(seconds: number): Uint8Array {
  const dataBytes = Math.round(seconds * 22_050) * 2;
  const bytes = new Uint8Array(44 + dataBytes);
  const view = new DataView(bytes.buffer);
  const ascii = (at: number, text: string) => [...text].forEach((c, i) => view.setUint8(at + i, c.charCodeAt(0)));
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, 22_050, true);
  view.setUint32(28, 44_100, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  return bytes;
}

/** The real synthesizer, counting what it is asked to read (and optionally acting after each piece). */
class CountingSynthesizer implements SpeechSynthesizer {
  readonly texts: string[] = [];
  seconds = 0;
  constructor(
    private readonly inner: SpeechSynthesizer,
    private readonly afterPiece?: () => Promise<void>,
  ) {}

  async synthesize(text: string, options: SpeechOptions): Promise<Uint8Array> {
    this.texts.push(text);
    const wav = await this.inner.synthesize(text, options);
    this.seconds += parseWav(wav).durationS;
    await this.afterPiece?.();
    return wav;
  }
}
