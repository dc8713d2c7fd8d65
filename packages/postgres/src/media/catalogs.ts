import type { Transaction } from 'kysely';
import type { MediaCreateTx, MixdownCatalog, PruneCatalog, SpeechCatalog } from '@inntak/media';
import type { Database, Db } from '../platform/index.js';
import { deleteMediaNode, existingMediaKeys, insertMediaRows, pruneCandidates, type NewMedia } from './media-store.js';
import { mediaTx } from './postgres-media-store.js';
import { mixChannelSources } from './mixer-store.js';
import { recordPruneRun } from './prune-log.js';
import { collectionMediaBytes } from './speech-jobs.js';

function mediaCreateTx(trx: Transaction<Database>): MediaCreateTx {
  const tx = mediaTx(trx);
  return {
    levelOn: tx.levelOn,
    readableMediaOf: tx.readableMediaOf,
    // Locks the scopes as POST /media does: a job and an upload into one collection take turns.
    collectionMediaBytes: tx.collectionMediaBytes,
    actorOf: async (personId) => {
      const row = await trx
        .selectFrom('nodes as n')
        .leftJoin('system_admins as a', 'a.node_id', 'n.id')
        .select(['n.id', 'a.node_id as admin_id'])
        .where('n.id', '=', personId)
        .where('n.node_kind', '=', 'person')
        .executeTakeFirst();
      return row && { personId: row.id, isAdmin: row.admin_id !== null };
    },
  };
}

/** A job's media node: its `check` and the rows in one transaction. */
function createCheckedMedia(db: Db, input: NewMedia & { check?: (tx: MediaCreateTx) => Promise<void> }) {
  return db.transaction().execute(async (trx) => {
    await input.check?.(mediaCreateTx(trx));
    return insertMediaRows(trx, input);
  });
}

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
    createMedia: (input) => createCheckedMedia(db, input),
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
    createMedia: (input) => createCheckedMedia(db, input),
    deleteMedia: async (id) => {
      await deleteMediaNode(db, id);
    },
  };
}
