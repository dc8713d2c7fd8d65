import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalFileStore } from '@inntak/files';
import { encodeWav, fileKeyOf, parseWav, type MediaMetadata, type SpeechRecognizer } from '@inntak/media';
import { enqueueJob, getJob } from '@inntak/postgres/jobs';
import { createMediaNode, transcriptionSegments } from '@inntak/postgres/media';
import { openTestDatabase, type OpenTestDatabase, storesOn } from '@inntak/postgres/testing';
import { describeWithEngine, POCKETSPHINX_MODEL_DIR as MODEL_DIR } from '@inntak/test-support';
import { runGovernedOnce } from './__tests__/run-governed-once.js';
import { EspeakSpeechSynthesizer } from './espeak-speech-synthesizer.js';
import { findPocketsphinxModel, parsePocketsphinxTimes, PocketsphinxSpeechRecognizer } from './pocketsphinx-speech-recognizer.js';
import { createCollection, createPerson } from '@inntak/access';

let h: OpenTestDatabase;
let files: LocalFileStore;
let collectionId: string;
const espeak = new EspeakSpeechSynthesizer();

beforeAll(async () => {
  h = await openTestDatabase();
  files = new LocalFileStore(await mkdtemp(join(tmpdir(), 'inntak-stt-')));
  const ownerId = (await createPerson(storesOn(h.db).graph, { subject: 'eier' })).id;
  collectionId = (await createCollection(storesOn(h.db).graph, { title: 'Opptak', ownerId })).id;
});
afterAll(() => h.dispose());

/** An uploaded audio file still owing its transcription, as POST /media leaves it. */
async function untranscribed(bytes: Uint8Array, mime = 'audio/wav', media_type: 'audio' | 'image' = 'audio'): Promise<string> {
  const metadata: MediaMetadata = { media_type, mime, bytes: bytes.byteLength, generated: false, regenerable: false, transcribed: false, last_accessed_at: new Date().toISOString() };
  const { id } = await createMediaNode(h.db, { ownerId: collectionId, title: 'opptak', metadata });
  const temp = await files.writeTemp(fileKeyOf(id, mime), bytes);
  await files.commit(temp, fileKeyOf(id, mime));
  return id;
}

const metadataOf = async (id: string) => (await h.db.selectFrom('nodes').select('metadata').where('id', '=', id).executeTakeFirstOrThrow()).metadata as MediaMetadata;

async function transcribe(mediaId: string, recognizer?: SpeechRecognizer) {
  const jobId = await enqueueJob(h.db, 'speech_transcription', { media_id: mediaId }, { maxAttempts: 1 });
  await runGovernedOnce(h, undefined, { files, synthesizer: espeak, ...(recognizer ? { recognizer } : {}) });
  return getJob(h.db, jobId);
}

// Debian's pocketsphinx and pocketsphinx-en-us (README, "Optional engines"): a real offline engine.
describeWithEngine('pocketsphinx', describe, 'speech_transcription with PocketSphinx (a real offline engine)', () => {
  it('turns spoken audio into timed segments stored with the node and sets transcribed', async () => {
    const sentence = 'The new bridge over the fjord opens for traffic tomorrow morning.';
    const wav = await espeak.synthesize(sentence, { voice: 'en-us', rate: 160 });
    const mediaId = await untranscribed(wav);
    const job = await transcribe(mediaId, new PocketsphinxSpeechRecognizer(MODEL_DIR));
    expect(job?.status).toBe('completed');
    const segments = await transcriptionSegments(h.db, mediaId, 100);
    expect(segments.length).toBeGreaterThan(0);
    const duration = parseWav(wav).durationS;
    for (const s of segments) {
      expect(s.start_s).toBeGreaterThanOrEqual(0);
      expect(s.end_s).toBeGreaterThan(s.start_s);
      expect(s.end_s).toBeLessThanOrEqual(duration + 0.1);
    }
    const heard = segments.map((s) => s.text).join(' ');
    // An English model on synthetic speech gets some words right (its word error rate is
    // measured by npm run bench:tts, not asserted); both programs are deterministic.
    expect(heard).toMatch(/\bthe new bridge\b/);
    expect(await metadataOf(mediaId)).toMatchObject({ transcribed: true, transcription_segments: segments.length, transcription_engine: `pocketsphinx:${MODEL_DIR}` });
  });

  it("finds the installed en-us model's acoustic model, language model and dictionary", () => {
    expect(findPocketsphinxModel(MODEL_DIR)).toEqual({ hmm: `${MODEL_DIR}/en-us`, lm: `${MODEL_DIR}/en-us.lm.bin`, dict: `${MODEL_DIR}/cmudict-en-us.dict` });
  });
});

describe('speech_transcription: failures leave the node untranscribed', () => {
  const heard = (text: string): SpeechRecognizer => ({ sampleRate: 16_000, name: 'fixed', recognize: async () => [{ start_s: 0.1, end_s: 0.9, text }] });

  it('without a recognizer (TRANSCRIPTION_MODEL_DIR unset) the job fails saying so', async () => {
    const mediaId = await untranscribed(await espeak.synthesize('Hei', { voice: 'nb', rate: 175 }));
    expect(await transcribe(mediaId)).toMatchObject({ status: 'failed', last_error: 'no speech recognizer: TRANSCRIPTION_MODEL_DIR is not set' });
    expect((await metadataOf(mediaId)).transcribed).toBe(false);
  });

  it('an engine that fails leaves no segments and transcribed false', async () => {
    const mediaId = await untranscribed(await espeak.synthesize('Hei på deg', { voice: 'nb', rate: 175 }));
    const broken: SpeechRecognizer = { sampleRate: 16_000, name: 'broken', recognize: async () => Promise.reject(new Error('engine crashed')) };
    expect(await transcribe(mediaId, broken)).toMatchObject({ status: 'failed', last_error: 'engine crashed' });
    expect(await transcriptionSegments(h.db, mediaId, 10)).toEqual([]);
    expect((await metadataOf(mediaId)).transcribed).toBe(false);
  });

  it('refuses audio it cannot decode and what is not audio, naming it, at once', async () => {
    const mp3 = await untranscribed(new Uint8Array([0xff, 0xfb, 0x90, 0x00]), 'audio/mpeg');
    expect(await transcribe(mp3, heard('x'))).toMatchObject({ status: 'failed', last_error: expect.stringMatching(new RegExp(`^media ${mp3}: cannot decode audio/mpeg: `)) });
    const picture = await untranscribed(new Uint8Array([0x89, 0x50]), 'image/png', 'image');
    expect(await transcribe(picture, heard('x'))).toMatchObject({ status: 'failed', last_error: `media ${picture} is image, not audio` });
  });

  it('reads the header before decoding: a WAV claiming 100 MHz fails permanently at once, naming the rate; the engine never hears it (issue 35, finding 4)', async () => {
    const wav = encodeWav(new Float32Array(6000), 16_000);
    new DataView(wav.buffer).setUint32(24, 100_000_000, true);
    const mediaId = await untranscribed(wav);
    const heardAnything: unknown[] = [];
    const listening: SpeechRecognizer = { sampleRate: 16_000, name: 'lytter', recognize: async (samples) => (heardAnything.push(samples), []) };
    expect(await transcribe(mediaId, listening)).toMatchObject({ status: 'failed', attempts: 1, last_error: `media ${mediaId}: samplingsfrekvensen er 100000000 Hz; den må være fra 8000 til 192000 Hz` });
    expect(heardAnything).toEqual([]);
    expect((await metadataOf(mediaId)).transcribed).toBe(false);
  });

  it('transcribing again replaces the segments', async () => {
    const mediaId = await untranscribed(await espeak.synthesize('Hei', { voice: 'nb', rate: 175 }));
    await transcribe(mediaId, heard('først'));
    await transcribe(mediaId, heard('så'));
    expect(await transcriptionSegments(h.db, mediaId, 10)).toEqual([{ start_s: 0.1, end_s: 0.9, text: 'så' }]);
  });
});

describe('the PocketSphinx adapter', () => {
  it('reads utterances with word times into segments, dropping markers and alternative-pronunciation marks', () => {
    const output = ['the new bridge', '<s> 0.000 0.020 0.99', 'the 0.030 0.100 0.06', 'new(2) 0.110 0.330 0.01', '<sil> 0.34 0.5 0.4', 'bridge 0.510 0.800 0.002', '</s> 0.81 0.9 1', '<s> 1.2 1.3 1', '[NOISE] 1.3 1.4 1', 'opens 1.400 1.790 0.12', '</s> 1.8 1.9 1'].join('\n');
    expect(parsePocketsphinxTimes(output)).toEqual([
      { start_s: 0.03, end_s: 0.8, text: 'the new bridge' },
      { start_s: 1.4, end_s: 1.79, text: 'opens' },
    ]);
  });

  it('a model directory without a model is refused at start-up, naming what is missing', () => {
    expect(() => findPocketsphinxModel('/nonexistent/model')).toThrow('TRANSCRIPTION_MODEL_DIR /nonexistent/model does not exist');
    expect(() => findPocketsphinxModel(tmpdir())).toThrow(/has no acoustic model \(a directory with mdef\), language model \(\*\.lm\.bin\), dictionary \(\*\.dict\)/);
  });

  it("finds a model laid out as Debian's pocketsphinx-en-us is, passing over the phone language model", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'inntak-model-'));
    await mkdir(join(dir, 'en-us'));
    for (const file of ['en-us/mdef', 'en-us-phone.lm.bin', 'en-us.lm.bin', 'cmudict-en-us.dict']) await writeFile(join(dir, file), '');
    try {
      expect(findPocketsphinxModel(dir)).toEqual({ hmm: join(dir, 'en-us'), lm: join(dir, 'en-us.lm.bin'), dict: join(dir, 'cmudict-en-us.dict') });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
