import { sql, type Selectable } from 'kysely';
import type { AudienceFacts } from '@inntak/access';
import { MEDIA_NODE_KIND, storedEffects, type LiveRoomRow, type MixChannelSource, type MixerChannel, type MixerChannelRow, type MixerChannelUpdate, type MixerFeed, type MixerRole } from '@inntak/media';
import type { Db, MixerChannelsTable } from '../platform/index.js';
import { hasAccess } from '../graph/index.js';
import { endLiveRoom, startLiveRoom } from '../jobs/index.js';

/**
 * Mixer channels and live rooms: the queries behind the media use cases (packages/media,
 * mixer-channels.ts). The row's trigger announces every change (013.do.media.sql).
 */

export function channelView(row: Selectable<MixerChannelsTable>): MixerChannel {
  return {
    id: row.id,
    room_id: row.room_id,
    node_id: row.node_id,
    label: row.label,
    gain_db: row.gain_db,
    muted: row.muted,
    effects: storedEffects(row.effects),
    offset_ms: row.offset_ms,
    role: row.role as MixerRole,
    updated_at: row.updated_at.toISOString(),
  };
}

export async function mixerChannel(db: Db, id: string, options: { forUpdate: boolean }): Promise<MixerChannel | undefined> {
  const query = db.selectFrom('mixer_channels').selectAll().where('id', '=', id);
  const row = await (options.forUpdate ? query.forUpdate() : query).executeTakeFirst();
  return row && channelView(row);
}

export async function insertMixerChannel(db: Db, channel: MixerChannelRow): Promise<MixerChannel> {
  const row = await db
    .insertInto('mixer_channels')
    .values({ ...channel, effects: JSON.stringify(channel.effects) })
    .returningAll()
    .executeTakeFirstOrThrow();
  return channelView(row);
}

export async function updateMixerChannel(db: Db, id: string, update: MixerChannelUpdate): Promise<MixerChannel> {
  const { effects, ...rest } = update;
  const row = await db
    .updateTable('mixer_channels')
    .set({ ...rest, ...(effects ? { effects: JSON.stringify(effects) } : {}), updated_at: sql`clock_timestamp()` })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return channelView(row);
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

/** A room's channels in creation order with their source's mime and type (render_mix), at most `limit`. */
export async function mixChannelSources(db: Db, roomId: string, limit: number): Promise<MixChannelSource[]> {
  const rows = await db
    .selectFrom('mixer_channels as c')
    .leftJoin('nodes as s', (join) => join.onRef('s.id', '=', 'c.node_id').on('s.node_kind', '=', MEDIA_NODE_KIND))
    .selectAll('c')
    .select(['s.id as source_id', sql<string | null>`s.metadata ->> 'mime'`.as('source_mime'), sql<string | null>`s.metadata ->> 'media_type'`.as('source_type')])
    .where('c.room_id', '=', roomId)
    .orderBy('c.created_at')
    .orderBy('c.id')
    .limit(limit)
    .execute();
  return rows.map(({ source_id, source_mime, source_type, ...row }) => ({
    channel: channelView(row),
    source: source_id ? { id: source_id, mime: source_mime ?? '', media_type: source_type ?? '' } : null,
  }));
}

export async function liveRoom(db: Db, roomId: string): Promise<LiveRoomRow | undefined> {
  return db.selectFrom('live_rooms').select(['room_id', 'started_at', 'ended_at']).where('room_id', '=', roomId).executeTakeFirst();
}

/** Recomputes the queued jobs' priorities (the live-room rules); how many changed. */
export async function reprioritiseQueuedJobs(db: Db): Promise<number> {
  const { rows } = await sql<{ n: number }>`select inntak_reprioritise_queued_jobs() as n`.execute(db);
  return Number(rows[0]?.n ?? 0);
}

export { startLiveRoom, endLiveRoom };

/** The change stream's view of mixers (MixerFeed) on `db`. */
export function postgresMixerFeed(db: Db): MixerFeed {
  return {
    channelsFor: (callerId, limit) => mixerChannelsFor(db, callerId, limit),
    readChanges: (ids) => readMixerChanges(db, ids),
  };
}
