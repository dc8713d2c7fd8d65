import { AppError } from '@inntak/core';
import { compress, fade, gainRamp, highPass } from './dsp.js';

/**
 * The effects a mixer channel can carry, each with its parameters, their ranges and defaults
 * (docs/media.md, "Effects"). A channel stores `{ name: { enabled, ...params } }`; parameters it
 * does not give take the default. The mixdown applies them in the order of this table.
 */
export const EFFECTS = {
  high_pass: {
    summary: 'second-order Butterworth high-pass filter',
    params: { cutoff_hz: { min: 20, max: 2000, default: 80 } },
  },
  compressor: {
    summary: 'feed-forward peak compressor',
    params: {
      threshold_db: { min: -60, max: 0, default: -18 },
      ratio: { min: 1, max: 20, default: 4 },
      attack_ms: { min: 0.1, max: 200, default: 5 },
      release_ms: { min: 1, max: 2000, default: 100 },
      makeup_db: { min: 0, max: 24, default: 0 },
    },
  },
  gain_ramp: {
    summary: 'gain from from_db to to_db, linear in dB, from start_ms over duration_ms',
    params: {
      start_ms: { min: 0, max: 3_600_000, default: 0 },
      duration_ms: { min: 1, max: 600_000, default: 1000 },
      from_db: { min: -60, max: 12, default: 0 },
      to_db: { min: -60, max: 12, default: 0 },
    },
  },
  fade: {
    summary: 'linear fade in from silence and out to silence',
    params: {
      fade_in_ms: { min: 0, max: 600_000, default: 0 },
      fade_out_ms: { min: 0, max: 600_000, default: 0 },
    },
  },
} as const;

export type EffectName = keyof typeof EFFECTS;
export const EFFECT_NAMES = Object.keys(EFFECTS) as EffectName[];
type ParamsOf<E extends EffectName> = { [P in keyof (typeof EFFECTS)[E]['params']]: number };
export type EffectSettings = { [E in EffectName]: { enabled: boolean } & ParamsOf<E> };
/** A channel's effects: only those it has, each complete (every parameter filled in). */
export type ChannelEffects = Partial<EffectSettings>;
/** What a caller sends: any subset of an effect's parameters, `enabled` optional. */
export type EffectInput = { enabled?: boolean } & Record<string, number | boolean | undefined>;

export function isEffectName(name: string): name is EffectName {
  return Object.hasOwn(EFFECTS, name);
}

const invalid = (detail: string) => new AppError('invalid_input', { detail });

/**
 * One effect's settings from the caller's input over what the channel had (or the defaults):
 * an unknown effect, an unknown parameter or a value out of range is refused with 400, naming it.
 */
export function effectSettings(name: string, input: EffectInput, current?: { enabled: boolean } & Record<string, number | boolean>): EffectSettings[EffectName] {
  if (!isEffectName(name)) throw invalid(`effect: ukjent effekt ${name}; kjente: ${EFFECT_NAMES.join(', ')}`);
  const spec = EFFECTS[name].params as Record<string, { min: number; max: number; default: number }>;
  const out: Record<string, number | boolean> = { enabled: typeof input.enabled === 'boolean' ? input.enabled : (current?.enabled ?? true) };
  for (const [param, range] of Object.entries(spec)) {
    const given = input[param];
    const previous = current?.[param];
    const value = given ?? (typeof previous === 'number' ? previous : range.default);
    if (typeof value !== 'number' || !Number.isFinite(value) || value < range.min || value > range.max) {
      throw invalid(`${name}.${param}: må være et tall fra ${range.min} til ${range.max}`);
    }
    out[param] = value;
  }
  for (const key of Object.keys(input)) {
    if (key !== 'enabled' && !Object.hasOwn(spec, key)) throw invalid(`${name}.${key}: ukjent parameter`);
  }
  return out as EffectSettings[EffectName];
}

/** A whole effects object checked and completed (create_mixer_channel). */
export function channelEffects(input: Record<string, EffectInput | undefined>): ChannelEffects {
  const out: Record<string, unknown> = {};
  for (const [name, settings] of Object.entries(input)) if (settings) out[name] = effectSettings(name, settings);
  return out as ChannelEffects;
}

/**
 * A channel's effects as stored, made whole: rows written before 024 held `{ name: boolean }`,
 * and a stored value outside today's ranges would fail the render. Unknown names are dropped.
 */
export function storedEffects(raw: unknown): ChannelEffects {
  const out: Record<string, unknown> = {};
  if (typeof raw !== 'object' || raw === null) return {};
  for (const [name, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!isEffectName(name)) continue;
    const input: EffectInput = typeof value === 'boolean' ? { enabled: value } : typeof value === 'object' && value !== null ? (value as EffectInput) : {};
    try {
      out[name] = effectSettings(name, input);
    } catch {
      out[name] = effectSettings(name, { enabled: input.enabled === true });
    }
  }
  return out as ChannelEffects;
}

/** The channel's enabled effects applied in the table's order. */
export function applyEffects(samples: Float32Array, rate: number, effects: ChannelEffects): Float32Array {
  let out = samples;
  if (effects.high_pass?.enabled) out = highPass(out, rate, effects.high_pass.cutoff_hz);
  if (effects.compressor?.enabled) out = compress(out, rate, effects.compressor);
  if (effects.gain_ramp?.enabled) out = gainRamp(out, rate, effects.gain_ramp);
  if (effects.fade?.enabled) out = fade(out, rate, effects.fade);
  return out;
}
