import { describe, expect, it } from '@jest/globals';
import { AppError } from '@inntak/core';
import { compress, gainToDb, integratedLoudness, peakOf, rmsDb } from './dsp.js';
import { applyEffects, channelEffects, effectSettings, storedEffects } from './mix-effects.js';
import { mixChannels, mixdown, MIX_CEILING_DBFS, NothingToMixError, type MixInput } from './mixdown.js';
import { decodeWav, encodeWav } from './wav.js';

const RATE = 48_000;
const sine = (hz: number, amplitude: number, seconds: number, rate = RATE) =>
  Float32Array.from({ length: Math.round(seconds * rate) }, (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / rate));
const channel = (samples: Float32Array, over: Partial<MixInput> = {}): MixInput => ({ samples, sampleRate: RATE, gain_db: 0, muted: false, offset_ms: 0, effects: {}, ...over });
/** The middle of a buffer, away from filter start-up and fades. */
const middle = (samples: Float32Array) => samples.subarray(Math.floor(samples.length / 4), Math.floor((3 * samples.length) / 4));

describe('mixdown: gain, mute, offset', () => {
  it('a −6 dB channel is half the amplitude (within 1 %)', () => {
    const source = sine(440, 0.5, 1);
    const full = peakOf(mixChannels([channel(source)]).samples);
    const half = peakOf(mixChannels([channel(source, { gain_db: -6 })]).samples);
    expect(Math.abs(half / full - 0.5) / 0.5).toBeLessThan(0.01);
  });

  it('a muted channel contributes nothing', () => {
    const voice = sine(220, 0.3, 1);
    const alone = mixChannels([channel(voice)]).samples;
    const withMuted = mixChannels([channel(voice), channel(sine(1000, 0.9, 2), { muted: true })]).samples;
    expect(withMuted).toEqual(alone);
  });

  it('refuses a mix whose every channel is muted', () => {
    expect(() => mixChannels([channel(sine(220, 0.3, 1), { muted: true })])).toThrow(NothingToMixError);
  });

  it('places a channel at its offset: silence before it, the mix as long as the latest end', () => {
    const { samples } = mixChannels([channel(sine(440, 0.5, 1), { offset_ms: 500 })]);
    expect(samples.length).toBe(1.5 * RATE);
    expect(peakOf(samples.subarray(0, RATE / 2))).toBe(0);
    expect(peakOf(samples.subarray(RATE / 2))).toBeCloseTo(0.5, 3);
  });

  it('mixes at one fixed rate, 48 kHz: a 22 050 Hz TTS voice is resampled to it (issue 35: never to the highest source’s rate)', () => {
    const speechRate = 22_050;
    const { samples, sampleRate } = mixChannels([channel(sine(440, 0.5, 1)), { ...channel(sine(440, 0.5, 1, speechRate)), sampleRate: speechRate }]);
    expect(sampleRate).toBe(RATE);
    expect(samples.length).toBe(RATE);
    expect(peakOf(middle(samples))).toBeCloseTo(1, 1);
  });
});

describe('mixdown: effects', () => {
  it('the compressor lowers peaks above its threshold and leaves quiet passages alone', () => {
    const quiet = sine(200, 0.05, 0.5);
    const loud = sine(200, 0.9, 0.5);
    const signal = new Float32Array([...quiet, ...loud]);
    const out = compress(signal, RATE, { threshold_db: -18, ratio: 4, attack_ms: 1, release_ms: 50, makeup_db: 0 });
    const loudOut = out.subarray(quiet.length + RATE / 10);
    expect(peakOf(loudOut)).toBeLessThan(0.9 * 0.5);
    // Above the threshold the level rises 1/ratio as fast: −0.9 dBFS in, about −18 + 17.1/4 ≈ −13.7 out.
    expect(gainToDb(peakOf(loudOut))).toBeCloseTo(-18 + (gainToDb(0.9) + 18) / 4, 0);
    expect(peakOf(out.subarray(0, quiet.length))).toBeCloseTo(0.05, 3);
  });

  it('the high-pass filter removes rumble below its cutoff and keeps speech above it', () => {
    const effects = channelEffects({ high_pass: { cutoff_hz: 200 } });
    expect(rmsDb(middle(applyEffects(sine(30, 0.5, 1), RATE, effects)))).toBeLessThan(rmsDb(sine(30, 0.5, 1)) - 30);
    expect(rmsDb(middle(applyEffects(sine(2000, 0.5, 1), RATE, effects)))).toBeCloseTo(rmsDb(sine(2000, 0.5, 1)), 0);
  });

  it('a fade starts and ends in silence; a gain ramp ends at its to_db', () => {
    const faded = applyEffects(sine(440, 0.5, 1), RATE, channelEffects({ fade: { fade_in_ms: 200, fade_out_ms: 200 } }));
    expect(peakOf(faded.subarray(0, RATE / 100))).toBeLessThan(0.5 * 0.06);
    expect(peakOf(faded.subarray(faded.length - RATE / 100))).toBeLessThan(0.5 * 0.06);
    expect(peakOf(middle(faded))).toBeCloseTo(0.5, 2);
    const ramped = applyEffects(sine(440, 0.5, 2), RATE, channelEffects({ gain_ramp: { start_ms: 500, duration_ms: 500, from_db: 0, to_db: -20 } }));
    expect(peakOf(ramped.subarray(0, RATE / 2))).toBeCloseTo(0.5, 2);
    expect(peakOf(ramped.subarray(RATE + 10))).toBeCloseTo(0.05, 3);
  });

  it('a disabled effect does nothing', () => {
    const source = sine(30, 0.5, 0.5);
    expect(applyEffects(source, RATE, channelEffects({ high_pass: { enabled: false, cutoff_hz: 500 } }))).toEqual(source);
  });

  it('refuses an unknown effect, an unknown parameter and a value out of range, naming it', () => {
    const detail = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        expect(error).toBeInstanceOf(AppError);
        return (error as AppError).detail;
      }
      throw new Error('not refused');
    };
    expect(detail(() => effectSettings('reverb', {}))).toMatch(/ukjent effekt reverb/);
    expect(detail(() => effectSettings('compressor', { knee_db: 3 }))).toMatch(/compressor.knee_db: ukjent parameter/);
    expect(detail(() => effectSettings('high_pass', { cutoff_hz: 5 }))).toMatch(/high_pass.cutoff_hz: må være et tall fra 20 til 2000/);
  });

  it('reads effects stored before 024 ({ name: boolean }) with default parameters, dropping unknown names', () => {
    expect(storedEffects({ compressor: true, reverb: true, high_pass: { enabled: false, cutoff_hz: 120 } })).toEqual({
      compressor: { enabled: true, threshold_db: -18, ratio: 4, attack_ms: 5, release_ms: 100, makeup_db: 0 },
      high_pass: { enabled: false, cutoff_hz: 120 },
    });
  });
});

describe('mixdown: loudness and clipping', () => {
  it('measures a 1 kHz sine at −20 dBFS as −23 LUFS within 0.1 LU (BS.1770)', () => {
    // −20 dBFS peak is −23.01 dB RMS; K-weighting is ≈ 0 dB at 997 Hz. Within 0.1 LU.
    expect(Math.abs(integratedLoudness(sine(997, 0.1, 3), RATE) + 23.01)).toBeLessThan(0.1);
    expect(Math.abs(integratedLoudness(sine(997, 0.1, 3, 44_100), 44_100) + 23.01)).toBeLessThan(0.1);
  });

  it('normalises a quiet mix to the target loudness', () => {
    const result = mixdown([channel(sine(997, 0.01, 3))], -16);
    expect(result.loudness_lufs).toBeCloseTo(-16, 1);
    expect(integratedLoudness(result.samples, RATE)).toBeCloseTo(-16, 1);
  });

  it('never clips: channels summing past full scale end at the ceiling, even with a loud target', () => {
    const loud = [channel(sine(100, 0.9, 1)), channel(sine(100, 0.9, 1), { gain_db: 12 }), channel(sine(100, 0.8, 1), { offset_ms: 200 })];
    expect(peakOf(mixChannels(loud).samples)).toBeGreaterThan(3);
    const result = mixdown(loud, -6);
    expect(peakOf(result.samples)).toBeLessThanOrEqual(10 ** (MIX_CEILING_DBFS / 20) + 1e-6);
    expect(result.peak_dbfs).toBeLessThanOrEqual(MIX_CEILING_DBFS + 1e-6);
    expect(result.loudness_lufs).toBeLessThan(-6);
  });

  it('round-trips through a 16-bit WAV within one step', () => {
    const result = mixdown([channel(sine(440, 0.5, 0.2))]);
    const back = decodeWav(encodeWav(result.samples, RATE));
    expect(back.sampleRate).toBe(RATE);
    expect(back.samples.length).toBe(result.samples.length);
    back.samples.forEach((s, i) => expect(Math.abs(s - result.samples[i]!)).toBeLessThan(2 / 32768));
  });
});
