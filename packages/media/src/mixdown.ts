import { applyGain, normalise, resample, type Normalised } from './dsp.js';
import { applyEffects, type ChannelEffects } from './mix-effects.js';

/** One channel of a mixdown: its decoded source and the channel's settings. */
export interface MixInput {
  samples: Float32Array;
  sampleRate: number;
  gain_db: number;
  muted: boolean;
  /** Where the source starts in the mix. */
  offset_ms: number;
  effects: ChannelEffects;
}

export const MIX_TARGET_LUFS = { min: -36, max: -6, default: -16 } as const;
/** The sample peak no output passes (dBFS): headroom for the 16-bit rounding and for encoders. */
export const MIX_CEILING_DBFS = -1;
/** A mix longer than this is refused: it is held in memory whole (4 bytes a sample). */
export const MIX_MAX_SECONDS = 3 * 3600;
/**
 * Every mix is made at this one rate (issue 35): it used to be the highest of its sources', so a
 * source claiming 100 MHz made every other one be resampled to it.
 */
export const MIX_SAMPLE_RATE = 48_000;

export class NothingToMixError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'NothingToMixError';
  }
}

/**
 * The channels summed, before normalisation: each unmuted source resampled to MIX_SAMPLE_RATE
 * (its length checked first), its effects applied, then its gain (the fader comes after the
 * effects, so a compressor sees the source's own level), and placed at its offset. A muted
 * channel is not read at all.
 */
export function mixChannels(inputs: readonly MixInput[]): { samples: Float32Array; sampleRate: number } {
  const live = inputs.filter((input) => !input.muted);
  if (live.length === 0) throw new NothingToMixError('every channel with a source is muted');
  const sampleRate = MIX_SAMPLE_RATE;
  // The length is known before anything is resampled or allocated.
  const end = Math.max(...live.map((input) => input.offset_ms / 1000 + input.samples.length / input.sampleRate));
  if (end > MIX_MAX_SECONDS) throw new NothingToMixError(`the mix would last ${Math.round(end)} s; at most ${MIX_MAX_SECONDS} s`);
  const placed = live.map((input) => {
    const processed = applyGain(applyEffects(resample(input.samples, input.sampleRate, sampleRate), sampleRate, input.effects), input.gain_db);
    return { samples: processed, at: Math.round((input.offset_ms / 1000) * sampleRate) };
  });
  const length = Math.max(...placed.map((p) => p.at + p.samples.length));
  if (length > MIX_MAX_SECONDS * sampleRate) throw new NothingToMixError(`the mix would last ${Math.round(length / sampleRate)} s; at most ${MIX_MAX_SECONDS} s`);
  const out = new Float32Array(length);
  for (const { samples, at } of placed) {
    for (let i = 0; i < samples.length; i++) out[at + i] = out[at + i]! + samples[i]!;
  }
  return { samples: out, sampleRate };
}

export interface Mixdown extends Normalised {
  sampleRate: number;
  duration_s: number;
  target_lufs: number;
}

/** The channels mixed and brought to `targetLufs` without passing MIX_CEILING_DBFS. */
export function mixdown(inputs: readonly MixInput[], targetLufs: number = MIX_TARGET_LUFS.default): Mixdown {
  const { samples, sampleRate } = mixChannels(inputs);
  const result = normalise(samples, sampleRate, targetLufs, MIX_CEILING_DBFS);
  return { ...result, sampleRate, duration_s: samples.length / sampleRate, target_lufs: targetLufs };
}
