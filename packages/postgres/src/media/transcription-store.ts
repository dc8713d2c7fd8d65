import { sql } from 'kysely';
import { MEDIA_NODE_KIND, type MediaMetadata, type TranscriptionCatalog, type TranscriptSegment } from '@inntak/media';
import type { Db } from '../platform/index.js';

/**
 * Transcription segments (024): what speech_transcription heard in an audio media node, stored
 * with the node and read with it (GET /media/{id}/transcription).
 */

export async function saveTranscription(db: Db, id: string, segments: readonly TranscriptSegment[], facts: { engine: string; at: string }, beforeCommit: () => void): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // The node row is locked first: a second job on the same node waits, then replaces.
    const node = await trx.selectFrom('nodes').select('id').where('id', '=', id).where('node_kind', '=', MEDIA_NODE_KIND).forUpdate().executeTakeFirst();
    if (!node) return;
    await trx.deleteFrom('transcription_segments').where('media_id', '=', id).execute();
    for (let i = 0; i < segments.length; i += 1000) {
      await trx
        .insertInto('transcription_segments')
        .values(segments.slice(i, i + 1000).map((s, j) => ({ media_id: id, seq: i + j, start_s: s.start_s, end_s: s.end_s, text: s.text })))
        .execute();
    }
    const patch = { transcribed: true, transcribed_at: facts.at, transcription_engine: facts.engine, transcription_segments: segments.length };
    await sql`update nodes set metadata = metadata || ${JSON.stringify(patch)}::jsonb where id = ${id}`.execute(trx);
    beforeCommit();
  });
}

/** A node's segments in time order, at most `limit`. */
export async function transcriptionSegments(db: Db, id: string, limit: number): Promise<TranscriptSegment[]> {
  return db.selectFrom('transcription_segments').select(['start_s', 'end_s', 'text']).where('media_id', '=', id).orderBy('seq').limit(limit).execute();
}

/** speech_transcription's database port on PostgreSQL. */
export function postgresTranscriptionCatalog(db: Db): TranscriptionCatalog {
  return {
    media: async (id) => {
      const row = await db.selectFrom('nodes').select(['id', 'metadata']).where('id', '=', id).where('node_kind', '=', MEDIA_NODE_KIND).executeTakeFirst();
      return row ? { id: row.id, metadata: row.metadata as MediaMetadata } : undefined;
    },
    saveTranscription: (id, segments, facts, beforeCommit) => saveTranscription(db, id, segments, facts, beforeCommit),
  };
}
