import { createRequire } from 'node:module';
import type * as WaveResampler from 'wave-resampler';

// wave-resampler is a CommonJS (UMD) bundle whose exports Node's ESM loader cannot name.
const { resample: resampleSinc } = createRequire(import.meta.url)('wave-resampler') as typeof WaveResampler;

/**
 * Pure signal processing over mono Float32 sample buffers (full scale ±1). Every function returns
 * a new buffer; none touches its input. The mixdown (mixdown.ts) chains them per channel.
 */

export const dbToGain = (db: number): number => 10 ** (db / 20);
export const gainToDb = (gain: number): number => (gain <= 0 ? -Infinity : 20 * Math.log10(gain));

/** Samples to another rate (windowed sinc, wave-resampler); the same buffer when the rates agree. */
export function resample(samples: Float32Array, fromRate: number, toRate: number): Float32Array {
  if (fromRate === toRate) return samples;
  return Float32Array.from(resampleSinc(samples, fromRate, toRate, { method: 'sinc', LPF: true }));
}

/** Scales every sample by `db` decibels. */
export function applyGain(samples: Float32Array, db: number): Float32Array {
  const gain = dbToGain(db);
  return samples.map((s) => s * gain);
}

interface Biquad {
  b0: number;
  b1: number;
  b2: number;
  a1: number;
  a2: number;
}

/** One biquad section, direct form I, run over the buffer. */
function runBiquad(samples: Float32Array, { b0, b1, b2, a1, a2 }: Biquad): Float32Array {
  const out = new Float32Array(samples.length);
  let x1 = 0;
  let x2 = 0;
  let y1 = 0;
  let y2 = 0;
  for (let i = 0; i < samples.length; i++) {
    const x = samples[i]!;
    const y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2;
    out[i] = y;
    x2 = x1;
    x1 = x;
    y2 = y1;
    y1 = y;
  }
  return out;
}

/** RBJ cookbook high-pass coefficients (Q 1/√2: a second-order Butterworth, −12 dB/octave). */
function highPassBiquad(rate: number, cutoffHz: number, q = Math.SQRT1_2): Biquad {
  const w = (2 * Math.PI * cutoffHz) / rate;
  const alpha = Math.sin(w) / (2 * q);
  const cos = Math.cos(w);
  const a0 = 1 + alpha;
  return { b0: (1 + cos) / 2 / a0, b1: -(1 + cos) / a0, b2: (1 + cos) / 2 / a0, a1: (-2 * cos) / a0, a2: (1 - alpha) / a0 };
}

/** A second-order Butterworth high-pass at `cutoffHz` (rumble, handling noise, hum below it). */
export function highPass(samples: Float32Array, rate: number, cutoffHz: number): Float32Array {
  return runBiquad(samples, highPassBiquad(rate, Math.min(cutoffHz, rate * 0.45)));
}

export interface CompressorParams {
  threshold_db: number;
  ratio: number;
  attack_ms: number;
  release_ms: number;
  makeup_db: number;
}

/**
 * A feed-forward peak compressor: above `threshold_db` the level rises only 1/`ratio` as fast.
 * The gain reduction follows the signal with one-pole attack and release smoothing, so a peak
 * shorter than the attack time gets through in part (as in any compressor; the mixdown's
 * normaliser has the last word on clipping).
 */
export function compress(samples: Float32Array, rate: number, p: CompressorParams): Float32Array {
  const coef = (ms: number) => (ms <= 0 ? 0 : Math.exp(-1 / ((ms / 1000) * rate)));
  const attack = coef(p.attack_ms);
  const release = coef(p.release_ms);
  const makeup = dbToGain(p.makeup_db);
  const out = new Float32Array(samples.length);
  let reductionDb = 0;
  for (let i = 0; i < samples.length; i++) {
    const x = samples[i]!;
    const levelDb = gainToDb(Math.abs(x));
    const over = levelDb - p.threshold_db;
    const wanted = over > 0 ? over * (1 - 1 / p.ratio) : 0;
    const k = wanted > reductionDb ? attack : release;
    reductionDb = k * reductionDb + (1 - k) * wanted;
    out[i] = x * dbToGain(-reductionDb) * makeup;
  }
  return out;
}

/** Linear fades in from silence at the start and out to silence at the end. */
export function fade(samples: Float32Array, rate: number, p: { fade_in_ms: number; fade_out_ms: number }): Float32Array {
  const out = Float32Array.from(samples);
  const fadeIn = Math.min(samples.length, Math.round((p.fade_in_ms / 1000) * rate));
  const fadeOut = Math.min(samples.length, Math.round((p.fade_out_ms / 1000) * rate));
  for (let i = 0; i < fadeIn; i++) out[i] = out[i]! * (i / fadeIn);
  for (let i = 0; i < fadeOut; i++) out[samples.length - 1 - i] = out[samples.length - 1 - i]! * (i / fadeOut);
  return out;
}

export interface GainRampParams {
  start_ms: number;
  duration_ms: number;
  from_db: number;
  to_db: number;
}

/**
 * `from_db` until `start_ms`, then a ramp linear in decibels over `duration_ms`, then `to_db`
 * to the end (a ducking bed under speech, a slow swell).
 */
export function gainRamp(samples: Float32Array, rate: number, p: GainRampParams): Float32Array {
  const start = Math.round((p.start_ms / 1000) * rate);
  const length = Math.max(1, Math.round((p.duration_ms / 1000) * rate));
  const out = new Float32Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const t = Math.min(1, Math.max(0, (i - start) / length));
    out[i] = samples[i]! * dbToGain(p.from_db + (p.to_db - p.from_db) * t);
  }
  return out;
}

export function peakOf(samples: Float32Array): number {
  let peak = 0;
  for (const s of samples) peak = Math.max(peak, Math.abs(s));
  return peak;
}

/** RMS level in dBFS. */
export function rmsDb(samples: Float32Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return gainToDb(Math.sqrt(sum / Math.max(1, samples.length)));
}

/** ITU-R BS.1770 K-weighting: the high shelf (head) and the RLB high-pass, for any rate. */
function kWeighting(rate: number): Biquad[] {
  const shelfK = Math.tan((Math.PI * 1681.974450955533) / rate);
  const vh = 10 ** (3.999843853973347 / 20);
  const vb = vh ** 0.4996667741545416;
  const q = 0.7071752369554196;
  const a0 = 1 + shelfK / q + shelfK * shelfK;
  const shelf = {
    b0: (vh + (vb * shelfK) / q + shelfK * shelfK) / a0,
    b1: (2 * (shelfK * shelfK - vh)) / a0,
    b2: (vh - (vb * shelfK) / q + shelfK * shelfK) / a0,
    a1: (2 * (shelfK * shelfK - 1)) / a0,
    a2: (1 - shelfK / q + shelfK * shelfK) / a0,
  };
  return [shelf, highPassBiquad(rate, 38.13547087602444, 0.5003270373238773)];
}

/**
 * Integrated loudness in LUFS (ITU-R BS.1770-4, mono): K-weighted mean square over 400 ms
 * blocks overlapping by 75 %, gated at −70 LUFS and then 10 LU below the ungated mean.
 * −Infinity for silence or a buffer shorter than one block.
 */
export function integratedLoudness(samples: Float32Array, rate: number): number {
  const weighted = kWeighting(rate).reduce(runBiquad, samples);
  const block = Math.round(0.4 * rate);
  const step = Math.round(0.1 * rate);
  const powers: number[] = [];
  for (let start = 0; start + block <= weighted.length; start += step) {
    let sum = 0;
    for (let i = start; i < start + block; i++) sum += weighted[i]! * weighted[i]!;
    powers.push(sum / block);
  }
  const lufs = (power: number) => -0.691 + 10 * Math.log10(power);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const absolute = powers.filter((p) => p > 0 && lufs(p) > -70);
  if (absolute.length === 0) return -Infinity;
  const relativeGate = lufs(mean(absolute)) - 10;
  const gated = absolute.filter((p) => lufs(p) > relativeGate);
  return lufs(mean(gated));
}

export interface Normalised {
  samples: Float32Array;
  /** The gain applied, in dB. */
  gain_db: number;
  /** Loudness after the gain (LUFS), below the target when the peak ceiling held it back. */
  loudness_lufs: number;
  peak_dbfs: number;
}

/**
 * One gain that brings the buffer to `targetLufs`, lowered where needed so no sample passes
 * `ceilingDb` (dBFS): the output never clips, at the cost of ending quieter than the target
 * when the material is very peaky. Silence stays silence.
 */
export function normalise(samples: Float32Array, rate: number, targetLufs: number, ceilingDb: number): Normalised {
  const measured = integratedLoudness(samples, rate);
  const peak = peakOf(samples);
  if (!Number.isFinite(measured) || peak === 0) return { samples: Float32Array.from(samples), gain_db: 0, loudness_lufs: measured, peak_dbfs: gainToDb(peak) };
  const gainDb = Math.min(targetLufs - measured, ceilingDb - gainToDb(peak));
  const out = applyGain(samples, gainDb);
  return { samples: out, gain_db: gainDb, loudness_lufs: measured + gainDb, peak_dbfs: gainToDb(peakOf(out)) };
}
