import { sql } from 'kysely';
import type { LiveRoomStatus } from '@inntak/jobs';
import type { Db } from '../platform/index.js';

/** The live-room port on PostgreSQL: a room is active while its row has no ended_at. */
export class PostgresLiveRoomStatus implements LiveRoomStatus {
  constructor(private readonly db: Db) {}

  async isActive(): Promise<boolean> {
    const row = await this.db.selectFrom('live_rooms').select('room_id').where('ended_at', 'is', null).limit(1).executeTakeFirst();
    return row !== undefined;
  }
}

export async function startLiveRoom(db: Db, roomId: string): Promise<void> {
  await db
    .insertInto('live_rooms')
    .values({ room_id: roomId })
    .onConflict((oc) => oc.column('room_id').doUpdateSet({ started_at: sql`now()`, ended_at: null }))
    .execute();
}

export async function endLiveRoom(db: Db, roomId: string): Promise<void> {
  await db.updateTable('live_rooms').set({ ended_at: sql`now()` }).where('room_id', '=', roomId).execute();
}
