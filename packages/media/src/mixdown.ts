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
  // The length is known before anything is resampled or allocated.
  const end = Math.max(...live.map((input) => input.offset_ms / 1000 + input.samples.length / input.sampleRate));
  if (end > MIX_MAX_SECONDS) throw new NothingToMixError(`the mix would last ${Math.round(end)} s; at most ${MIX_MAX_SECONDS} s`);
  const mix = new MixBuffer(end);
  for (const input of live) mix.add(input);
  return mix.result();
}

/**
 * A mix made one channel at a time: each is resampled, processed and added as it comes, so only
 * the sum and the channel being added are held, never every channel's samples at once (found
 * attacking the merged result of issue 35: 32 channels on one upload held 32 decoded copies).
 */
export class MixBuffer {
  private out: Float32Array;
  private length = 0;
  private added = 0;

  /** `expectedSeconds`: the mix's length as far as it is known (the sources' headers). */
  constructor(expectedSeconds: number) {
    this.out = new Float32Array(Math.min(Math.ceil(expectedSeconds * MIX_SAMPLE_RATE), MIX_MAX_SECONDS * MIX_SAMPLE_RATE));
  }

  add(input: MixInput): void {
    if (input.muted) return;
    const sampleRate = MIX_SAMPLE_RATE;
    const at = Math.round((input.offset_ms / 1000) * sampleRate);
    // A source longer than its header said may not stretch the mix past its limit either.
    if (at + Math.ceil((input.samples.length / input.sampleRate) * sampleRate) > MIX_MAX_SECONDS * sampleRate + sampleRate) {
      throw new NothingToMixError(`the mix would last more than ${MIX_MAX_SECONDS} s`);
    }
    const samples = applyGain(applyEffects(resample(input.samples, input.sampleRate, sampleRate), sampleRate, input.effects), input.gain_db);
    const end = at + samples.length;
    if (end > MIX_MAX_SECONDS * sampleRate) throw new NothingToMixError(`the mix would last ${Math.round(end / sampleRate)} s; at most ${MIX_MAX_SECONDS} s`);
    if (end > this.out.length) {
      const grown = new Float32Array(end);
      grown.set(this.out.subarray(0, this.length));
      this.out = grown;
    }
    const out = this.out;
    for (let i = 0; i < samples.length; i++) out[at + i] = out[at + i]! + samples[i]!;
    this.length = Math.max(this.length, end);
    this.added += 1;
  }

  result(): { samples: Float32Array; sampleRate: number } {
    if (this.added === 0) throw new NothingToMixError('every channel with a source is muted');
    return { samples: this.length === this.out.length ? this.out : this.out.slice(0, this.length), sampleRate: MIX_SAMPLE_RATE };
  }
}

export interface Mixdown extends Normalised {
  sampleRate: number;
  duration_s: number;
  target_lufs: number;
}

/** The channels mixed and brought to `targetLufs` without passing MIX_CEILING_DBFS. */
export function mixdown(inputs: readonly MixInput[], targetLufs: number = MIX_TARGET_LUFS.default): Mixdown {
  return normaliseMix(mixChannels(inputs), targetLufs);
}

/** A summed mix (mixChannels, MixBuffer) brought to `targetLufs` without passing MIX_CEILING_DBFS. */
export function normaliseMix({ samples, sampleRate }: { samples: Float32Array; sampleRate: number }, targetLufs: number = MIX_TARGET_LUFS.default): Mixdown {
  const result = normalise(samples, sampleRate, targetLufs, MIX_CEILING_DBFS);
  return { ...result, sampleRate, duration_s: samples.length / sampleRate, target_lufs: targetLufs };
}
