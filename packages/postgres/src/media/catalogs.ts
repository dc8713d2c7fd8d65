import type { MixdownCatalog, PruneCatalog, SpeechCatalog } from '@inntak/media';
import type { Db } from '../platform/index.js';
import { createMediaNode, deleteMediaNode, existingMediaKeys, pruneCandidates } from './media-store.js';
import { mixChannelSources } from './mixer-store.js';
import { recordPruneRun } from './prune-log.js';
import { collectionMediaBytes } from './speech-jobs.js';

/** The pruning run's database port on PostgreSQL. */
export function postgresPruneCatalog(db: Db): PruneCatalog {
  return {
    candidates: (afterId, limit) => pruneCandidates(db, afterId, limit),
    deleteRow: (id) => deleteMediaNode(db, id),
    rowKeys: (ids) => existingMediaKeys(db, ids),
    record: (report) => recordPruneRun(db, report),
  };
}

/** Speech generation's database port on PostgreSQL. */
export function postgresSpeechCatalog(db: Db): SpeechCatalog {
  return {
    source: (nodeId) => db.selectFrom('nodes').select(['id', 'title', 'content']).where('id', '=', nodeId).executeTakeFirst(),
    createMedia: (input) => createMediaNode(db, input),
    deleteMedia: async (id) => {
      await deleteMediaNode(db, id);
    },
    collectionMediaBytes: (nodeId) => collectionMediaBytes(db, nodeId),
  };
}

/** The render_mix job's database port on PostgreSQL. */
export function postgresMixdownCatalog(db: Db): MixdownCatalog {
  return {
    room: (roomId) => db.selectFrom('nodes').select(['id', 'node_kind', 'title']).where('id', '=', roomId).executeTakeFirst(),
    channels: (roomId, limit) => mixChannelSources(db, roomId, limit),
    createMedia: (input) => createMediaNode(db, input),
    deleteMedia: async (id) => {
      await deleteMediaNode(db, id);
    },
    collectionMediaBytes: (nodeId) => collectionMediaBytes(db, nodeId),
  };
}
