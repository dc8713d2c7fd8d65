import { describe, expect, it } from '@jest/globals';
import { runInDspThread } from './dsp-client.js';
import { RefusedAudioError } from './dsp-work.js';
import { decodeWav, encodeWav } from './wav.js';

// The DSP thread (issue 35, finding 4): decoding and mixing run off the worker's event loop, and
// the job's signal (timeout, cancel, SIGTERM) ends the thread wherever it is.

const sine = (seconds: number, rate: number) => Float32Array.from({ length: Math.round(seconds * rate) }, (_, i) => 0.5 * Math.sin((2 * Math.PI * 220 * i) / rate));
const source = (wav: Uint8Array, label = 'a') => ({ label, bytes: wav, mime: 'audio/wav', gain_db: 0, offset_ms: 0, effects: {} });

describe('runInDspThread', () => {
  it('mixes in a thread and hands back the WAV at 48 kHz', async () => {
    const result = await runInDspThread({ kind: 'mix', sources: [source(encodeWav(sine(1, 22_050), 22_050))], target_lufs: -16 }, new AbortController().signal);
    expect(result.sample_rate).toBe(48_000);
    expect(result.duration_s).toBeCloseTo(1, 3);
    const back = decodeWav(result.wav);
    expect(back.sampleRate).toBe(48_000);
    expect(Math.abs(back.samples.length - 48_000)).toBeLessThanOrEqual(2);
  });

  it('a refusal crosses back as RefusedAudioError, naming the channel: a mix longer than 3 h by the headers, before any decoding', async () => {
    const late = { ...source(encodeWav(sine(1, 8000), 8000), 'sent'), offset_ms: 3 * 3600 * 1000 };
    await expect(runInDspThread({ kind: 'mix', sources: [late], target_lufs: -16 }, new AbortController().signal)).rejects.toThrow(new RefusedAudioError('the mix would last 10801 s; at most 10800 s'));
  });

  it('the job’s signal ends the thread mid-work: the promise rejects with its reason', async () => {
    const controller = new AbortController();
    const work = runInDspThread({ kind: 'mix', sources: [source(encodeWav(sine(60, 44_100), 44_100))], target_lufs: -16 }, controller.signal);
    setTimeout(() => controller.abort(new Error('job cancelled')), 200);
    await expect(work).rejects.toThrow('job cancelled');
  });
});
