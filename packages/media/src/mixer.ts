import { viewOf, type AudienceFacts, type Delivery } from '@inntak/access';

/**
 * Mixer channels of a live room (docs/media.md). A room is any node; its channels are rows of
 * mixer_channels. Operations are checked against the room node: `member` changes gain, mute and
 * effects; `admin` creates channels and sets roles (docs/access.md).
 */
export interface MixerChannel {
  id: string;
  room_id: string;
  node_id: string | null;
  label: string;
  /** -60 … +12 dB. */
  gain_db: number;
  muted: boolean;
  effects: Record<string, boolean>;
  role: MixerRole;
  updated_at: string;
}

export const GAIN_RANGE = { min: -60, max: 12 } as const;
export const MIXER_ROLES = ['host', 'guest', 'music', 'effects', 'listener'] as const;
export type MixerRole = (typeof MIXER_ROLES)[number];
export const DEFAULT_MIXER_ROLE: MixerRole = 'guest';
/** Effect names: short snake_case, so a client cannot grow a channel without bound. */
export const EFFECT_NAME_PATTERN = /^[a-z][a-z0-9_]{0,31}$/;
export const MAX_EFFECTS = 16;
export const MAX_LABEL_CHARS = 200;

/** The mixer operations and the level each needs on the room node. */
export const MIXER_REQUIREMENTS = {
  create_mixer_channel: 'admin',
  set_mixer_role: 'admin',
  set_gain: 'member',
  set_mute: 'member',
  toggle_effect: 'member',
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
