import { viewOf, type AudienceFacts, type Delivery } from '@inntak/access';
import type { ChannelEffects } from './mix-effects.js';

/**
 * Mixer channels of a room (docs/media.md). A room is a `communication` node; its channels are
 * rows of mixer_channels, each with an audio media node as its source. Operations are checked
 * against the room node: `member` changes gain, mute, effects and offset and renders the mix;
 * `admin` creates channels and sets roles (docs/access.md).
 */
export interface MixerChannel {
  id: string;
  room_id: string;
  /** The source: an audio media node (null: a channel without a source, skipped by the mixdown). */
  node_id: string | null;
  label: string;
  /** -60 … +12 dB. */
  gain_db: number;
  muted: boolean;
  /** The effects with their parameters (mix-effects.ts). */
  effects: ChannelEffects;
  /** Where the source starts in the mix, 0 … 3 600 000 ms. */
  offset_ms: number;
  role: MixerRole;
  updated_at: string;
}

/** The node kind a mixer's room must be. */
export const ROOM_NODE_KIND = 'communication';
export const OFFSET_RANGE_MS = { min: 0, max: 3_600_000 } as const;

export const GAIN_RANGE = { min: -60, max: 12 } as const;
export const MIXER_ROLES = ['host', 'guest', 'music', 'effects', 'listener'] as const;
export type MixerRole = (typeof MIXER_ROLES)[number];
export const DEFAULT_MIXER_ROLE: MixerRole = 'guest';
export const MAX_LABEL_CHARS = 200;

/** The mixer operations and the level each needs on the room node. */
export const MIXER_REQUIREMENTS = {
  create_mixer_channel: 'admin',
  set_mixer_role: 'admin',
  set_gain: 'member',
  set_mute: 'member',
  toggle_effect: 'member',
  set_effect: 'member',
  set_channel_offset: 'member',
  set_channel_source: 'member',
  render_mix: 'member',
} as const;

/**
 * Who gets a channel change on the stream: the subjects who may read the room in full (its
 * creator, its access rows) and, when the room is readable or open, everyone.
 */
export function mixerDeliveries<T>(channel: T, room: AudienceFacts): Delivery<T>[] {
  const stranger = viewOf(room.visibility, { creator: false, access: null }) === 'full';
  if (stranger) return [{ row: channel, subjects: [], everyone: true }];
  const subjects = new Set<string>(room.access.map(([subject]) => subject));
  if (room.created_by) subjects.add(room.created_by);
  return subjects.size === 0 ? [] : [{ row: channel, subjects: [...subjects], everyone: false }];
}
