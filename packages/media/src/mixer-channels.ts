import { AppError, uuidv7 } from '@inntak/core';
import type { Actor } from '@inntak/access';
import { DEFAULT_MIXER_ROLE, MIXER_REQUIREMENTS, ROOM_NODE_KIND, type MixerChannel, type MixerRole } from './mixer.js';
import { channelEffects, effectSettings, type ChannelEffects, type EffectInput } from './mix-effects.js';
import type { MediaStore, MediaTx, MixerChannelUpdate } from './ports.js';
import { requireLevel } from '@inntak/access';

/**
 * Mixer channels and live sessions (docs/media.md). Every change is one transaction that locks
 * the channel row, checks the caller against the room node, and writes the new state; the
 * row's trigger announces it (013.do.media.sql). Concurrent editors of one channel serialise on
 * the row lock: the last write wins and every client is sent each state in commit order.
 */

export interface NewMixerChannel {
  room_id: string;
  node_id?: string | null;
  label: string;
  gain_db?: number;
  muted?: boolean;
  effects?: Record<string, EffectInput | undefined>;
  offset_ms?: number;
  role?: MixerRole;
}

/**
 * A channel's source must be an audio media node the caller may read in full (as for
 * GET /media/{id}): 404 naming node_id when it may not, 400 when it is not audio.
 */
async function requireAudioSource(tx: MediaTx, actor: Actor, nodeId: string): Promise<void> {
  const media = await tx.readableMediaOf(actor, nodeId);
  if (!media) throw new AppError('not_found', { detail: 'node_id' });
  if (media.metadata.media_type !== 'audio') throw new AppError('invalid_input', { detail: `node_id: kilden må være en lydfil, ikke ${media.metadata.media_type}` });
}

/** The room of a mixer is a `communication` node: 400 for any other kind. */
export function requireRoomKind(nodeKind: string): void {
  if (nodeKind !== ROOM_NODE_KIND) throw new AppError('invalid_input', { detail: `room_id: et rom er en ${ROOM_NODE_KIND}-node, ikke ${nodeKind}` });
}

export async function createMixerChannel(store: MediaStore, actor: Actor, input: NewMixerChannel): Promise<MixerChannel> {
  return store.transaction(async (tx) => {
    const room = await requireLevel(tx, actor, input.room_id, MIXER_REQUIREMENTS.create_mixer_channel, 'room_id');
    requireRoomKind(room.node_kind);
    if (input.node_id) await requireAudioSource(tx, actor, input.node_id);
    return tx.insertMixerChannel({
      id: uuidv7(),
      room_id: input.room_id,
      node_id: input.node_id ?? null,
      label: input.label,
      gain_db: input.gain_db ?? 0,
      muted: input.muted ?? false,
      effects: channelEffects(input.effects ?? {}),
      offset_ms: input.offset_ms ?? 0,
      role: input.role ?? DEFAULT_MIXER_ROLE,
      created_by: actor.personId,
    });
  });
}

export type MixerChange =
  | { op: 'set_gain'; gain_db: number }
  | { op: 'set_mute'; muted: boolean }
  | { op: 'toggle_effect'; effect: string }
  | { op: 'set_effect'; effect: string; settings: EffectInput }
  | { op: 'set_channel_offset'; offset_ms: number }
  | { op: 'set_channel_source'; node_id: string | null }
  | { op: 'set_mixer_role'; role: MixerRole };

function updateFor(current: MixerChannel, change: MixerChange): MixerChannelUpdate {
  switch (change.op) {
    case 'set_gain':
      return { gain_db: change.gain_db };
    case 'set_mute':
      return { muted: change.muted };
    case 'set_mixer_role':
      return { role: change.role };
    case 'set_channel_offset':
      return { offset_ms: change.offset_ms };
    case 'set_channel_source':
      return { node_id: change.node_id };
    case 'toggle_effect':
    case 'set_effect': {
      // An effect the channel does not have starts off with its defaults, so a toggle turns it on.
      const had = (current.effects as Record<string, ({ enabled: boolean } & Record<string, number | boolean>) | undefined>)[change.effect];
      const input = change.op === 'toggle_effect' ? { enabled: !(had?.enabled ?? false) } : change.settings;
      const effects: ChannelEffects = { ...current.effects, [change.effect]: effectSettings(change.effect, input, had) };
      return { effects };
    }
  }
}

export async function changeMixerChannel(store: MediaStore, actor: Actor, channelId: string, change: MixerChange): Promise<MixerChannel> {
  return store.transaction(async (tx) => {
    const current = await tx.mixerChannel(channelId, { forUpdate: true });
    if (!current) throw new AppError('not_found', { detail: 'channel_id' });
    await requireLevel(tx, actor, current.room_id, MIXER_REQUIREMENTS[change.op], 'channel_id');
    if (change.op === 'set_channel_source' && change.node_id !== null) await requireAudioSource(tx, actor, change.node_id);
    return tx.updateMixerChannel(channelId, updateFor(current, change));
  });
}

export interface LiveSession {
  room_id: string;
  live: boolean;
  started_at: string | null;
  ended_at: string | null;
  /** Queued jobs whose priority was recomputed. */
  reprioritised: number;
}

/**
 * Starts or ends a room's live session (admin on the room): recorded in live_rooms, which the
 * job governor reads, and the queued jobs re-prioritised in the same transaction.
 */
export async function setLiveSession(store: MediaStore, actor: Actor, roomId: string, live: boolean): Promise<LiveSession> {
  return store.transaction(async (tx) => {
    await requireLevel(tx, actor, roomId, 'admin', 'room_id');
    if (live) await tx.startLiveRoom(roomId);
    else {
      const active = await tx.liveRoom(roomId);
      if (!active || active.ended_at !== null) throw new AppError('conflict', { detail: 'rommet har ingen aktiv direktesending' });
      await tx.endLiveRoom(roomId);
    }
    const reprioritised = await tx.reprioritiseQueuedJobs();
    const room = await tx.liveRoom(roomId);
    if (!room) throw new Error(`live room ${roomId} vanished inside its transaction`);
    return {
      room_id: roomId,
      live: room.ended_at === null,
      started_at: room.started_at.toISOString(),
      ended_at: room.ended_at?.toISOString() ?? null,
      reprioritised,
    };
  });
}
