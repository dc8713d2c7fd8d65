import { sql, type Selectable } from 'kysely';
import { AppError, uuidv7 } from '@inntak/core';
import type { Actor, AudienceFacts } from '@inntak/access';
import { DEFAULT_MIXER_ROLE, MAX_EFFECTS, MIXER_REQUIREMENTS, type MixerChannel, type MixerRole } from '@inntak/media';
import type { Db, MixerChannelsTable } from '../platform/index.js';
import { hasAccess, requireLevel } from '../graph/index.js';
import { endLiveRoom, startLiveRoom } from '../jobs/index.js';

/**
 * Mixer channels and live sessions (docs/media.md). Every change is one transaction that locks
 * the channel row, checks the caller against the room node, and writes the new state; the
 * row's trigger announces it (013.do.media.sql). Concurrent editors of one channel serialise on
 * the row lock: the last write wins and every client is sent each state in commit order.
 */

export function channelView(row: Selectable<MixerChannelsTable>): MixerChannel {
  return {
    id: row.id,
    room_id: row.room_id,
    node_id: row.node_id,
    label: row.label,
    gain_db: row.gain_db,
    muted: row.muted,
    effects: row.effects,
    role: row.role as MixerRole,
    updated_at: row.updated_at.toISOString(),
  };
}

export interface NewMixerChannel {
  room_id: string;
  node_id?: string | null;
  label: string;
  gain_db?: number;
  muted?: boolean;
  effects?: Record<string, boolean>;
  role?: MixerRole;
}

export async function createMixerChannel(db: Db, actor: Actor, input: NewMixerChannel): Promise<MixerChannel> {
  return db.transaction().execute(async (trx) => {
    await requireLevel(trx, actor, input.room_id, MIXER_REQUIREMENTS.create_mixer_channel, 'room_id');
    if (input.node_id) await requireLevel(trx, actor, input.node_id, null, 'node_id');
    const row = await trx
      .insertInto('mixer_channels')
      .values({
        id: uuidv7(),
        room_id: input.room_id,
        node_id: input.node_id ?? null,
        label: input.label,
        gain_db: input.gain_db ?? 0,
        muted: input.muted ?? false,
        effects: JSON.stringify(input.effects ?? {}),
        role: input.role ?? DEFAULT_MIXER_ROLE,
        created_by: actor.personId,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    return channelView(row);
  });
}

export type MixerChange =
  | { op: 'set_gain'; gain_db: number }
  | { op: 'set_mute'; muted: boolean }
  | { op: 'toggle_effect'; effect: string }
  | { op: 'set_mixer_role'; role: MixerRole };

export async function changeMixerChannel(db: Db, actor: Actor, channelId: string, change: MixerChange): Promise<MixerChannel> {
  return db.transaction().execute(async (trx) => {
    const current = await trx.selectFrom('mixer_channels').selectAll().where('id', '=', channelId).forUpdate().executeTakeFirst();
    if (!current) throw new AppError('not_found', { detail: 'channel_id' });
    await requireLevel(trx, actor, current.room_id, MIXER_REQUIREMENTS[change.op], 'channel_id');
    let update;
    switch (change.op) {
      case 'set_gain':
        update = { gain_db: change.gain_db };
        break;
      case 'set_mute':
        update = { muted: change.muted };
        break;
      case 'set_mixer_role':
        update = { role: change.role };
        break;
      case 'toggle_effect': {
        const effects = { ...current.effects };
        if (!(change.effect in effects) && Object.keys(effects).length >= MAX_EFFECTS) {
          throw new AppError('invalid_input', { detail: `effect: en kanal har høyst ${MAX_EFFECTS} effekter` });
        }
        effects[change.effect] = !effects[change.effect];
        update = { effects: JSON.stringify(effects) };
        break;
      }
    }
    const row = await trx
      .updateTable('mixer_channels')
      .set({ ...update, updated_at: sql`clock_timestamp()` })
      .where('id', '=', channelId)
      .returningAll()
      .executeTakeFirstOrThrow();
    return channelView(row);
  });
}

/**
 * The channels of the rooms the caller may read in full (creator, an access row, or a readable
 * or open room), most recently changed first, at most `limit` (initial_sync).
 */
export async function mixerChannelsFor(db: Db, callerId: string, limit: number): Promise<MixerChannel[]> {
  const rows = await db
    .selectFrom('mixer_channels as c')
    .innerJoin('nodes as r', 'r.id', 'c.room_id')
    .selectAll('c')
    .where((eb) => eb.or([eb('r.visibility', 'in', ['readable', 'open']), hasAccess(callerId, 'r')]))
    .orderBy('c.updated_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map(channelView);
}

/** Channels by id with their room's audience facts, for the stream. */
export async function readMixerChanges(db: Db, ids: readonly string[]): Promise<Array<{ channel: MixerChannel; room: AudienceFacts }>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const rows = await db
    .selectFrom('mixer_channels as c')
    .selectAll('c')
    .select(sql<AudienceFacts>`inntak_node_audience_facts(c.room_id)`.as('room_facts'))
    .where('c.id', 'in', unique)
    .execute();
  const byId = new Map(rows.map(({ room_facts, ...row }) => [row.id, { channel: channelView(row), room: room_facts }]));
  return unique.map((id) => byId.get(id)).filter((x): x is { channel: MixerChannel; room: AudienceFacts } => x !== undefined);
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
export async function setLiveSession(db: Db, actor: Actor, roomId: string, live: boolean): Promise<LiveSession> {
  return db.transaction().execute(async (trx) => {
    await requireLevel(trx, actor, roomId, 'admin', 'room_id');
    if (live) await startLiveRoom(trx, roomId);
    else {
      const active = await trx.selectFrom('live_rooms').select('room_id').where('room_id', '=', roomId).where('ended_at', 'is', null).executeTakeFirst();
      if (!active) throw new AppError('conflict', { detail: 'rommet har ingen aktiv direktesending' });
      await endLiveRoom(trx, roomId);
    }
    const { rows } = await sql<{ n: number }>`select inntak_reprioritise_queued_jobs() as n`.execute(trx);
    const room = await trx.selectFrom('live_rooms').selectAll().where('room_id', '=', roomId).executeTakeFirstOrThrow();
    return {
      room_id: roomId,
      live: room.ended_at === null,
      started_at: room.started_at.toISOString(),
      ended_at: room.ended_at?.toISOString() ?? null,
      reprioritised: Number(rows[0]?.n ?? 0),
    };
  });
}


