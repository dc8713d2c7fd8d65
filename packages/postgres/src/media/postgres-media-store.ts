import type { MediaStore, MediaTx, PruneReport } from '@inntak/media';
import type { Transaction } from 'kysely';
import type { Database, Db } from '../platform/index.js';
import { levelOn } from '../graph/index.js';
import { enqueueJob } from '../jobs/index.js';
import { anyMedia, deleteMediaNode, insertMediaRows, readMediaFor, touchMediaAccess } from './media-store.js';
import { endLiveRoom, insertMixerChannel, liveRoom, mixChannelSources, mixerChannel, reprioritiseQueuedJobs, startLiveRoom, updateMixerChannel } from './mixer-store.js';
import { latestPruneRun } from './prune-log.js';
import { transcriptionSegments } from './transcription-store.js';
import { collectionMediaBytes, lockMediaQuotaOf, lockSpeechQueueOf, personUploadBytes, speechJobsOf } from './speech-jobs.js';

export function mediaTx(trx: Transaction<Database>): MediaTx {
  return {
    levelOn: (actor, nodeId) => levelOn(trx, actor, nodeId),
    speechSource: (nodeId) => trx.selectFrom('nodes').select(['id', 'title', 'content']).where('id', '=', nodeId).executeTakeFirst(),
    // Read under the scopes' lock, held to commit: the caller's insert is in before the next reads.
    collectionMediaBytes: async (nodeId) => {
      await lockMediaQuotaOf(trx, nodeId);
      return collectionMediaBytes(trx, nodeId);
    },
    personUploadBytes: (personId) => personUploadBytes(trx, personId),
    lockSpeechQueueOf: (personId) => lockSpeechQueueOf(trx, personId),
    speechJobsOf: (personId) => speechJobsOf(trx, personId),
    enqueueSpeech: (payload, options) => enqueueJob(trx, 'tts_generate', payload, options),
    readableMediaOf: (actor, id) => (actor.personId === null ? anyMedia(trx, id) : readMediaFor(trx, actor.personId, id)),
    enqueueMixdown: (payload) => enqueueJob(trx, 'render_mix', payload, { maxAttempts: 2 }),
    mixSourcesOf: async (roomId, limit) => (await mixChannelSources(trx, roomId, limit)).flatMap((c) => (c.source ? [c.source.id] : [])),
    enqueueTranscription: (payload) => enqueueJob(trx, 'speech_transcription', payload, { maxAttempts: 2 }),
    insertMedia: async (input) => {
      await insertMediaRows(trx, input);
    },
    mixerChannel: (id, options) => mixerChannel(trx, id, options),
    insertMixerChannel: (row) => insertMixerChannel(trx, row),
    updateMixerChannel: (id, update) => updateMixerChannel(trx, id, update),
    liveRoom: (roomId) => liveRoom(trx, roomId),
    startLiveRoom: (roomId) => startLiveRoom(trx, roomId),
    endLiveRoom: (roomId) => endLiveRoom(trx, roomId),
    reprioritiseQueuedJobs: () => reprioritiseQueuedJobs(trx),
  };
}

/** Media's store on PostgreSQL (packages/media/src/ports.ts). */
export class PostgresMediaStore implements MediaStore {
  constructor(private readonly db: Db) {}

  transaction<T>(work: (tx: MediaTx) => Promise<T>): Promise<T> {
    return this.db.transaction().execute((trx) => work(mediaTx(trx)));
  }

  readableMedia(personId: string, id: string) {
    return readMediaFor(this.db, personId, id);
  }

  mediaById(id: string) {
    return anyMedia(this.db, id);
  }

  transcriptionOf(id: string, limit: number) {
    return transcriptionSegments(this.db, id, limit);
  }

  async deleteMedia(id: string): Promise<void> {
    await deleteMediaNode(this.db, id);
  }

  touchMediaAccess(id: string, now?: Date): Promise<boolean> {
    return touchMediaAccess(this.db, id, now);
  }

  latestPruneRun(): Promise<PruneReport | null> {
    return latestPruneRun(this.db);
  }
}
