// Media nodes, the pruning log, mixer channels and live sessions.
export {
  createMediaNode,
  readMediaFor,
  touchMediaAccess,
  mediaOfNode,
  mediaOfJob,
  pruneCandidates,
  deleteMediaNode,
  existingMediaKeys,
  MediaOwnerGoneError,
  type NewMedia,
  type MediaRecord,
} from './media-store.js';
export { recordPruneRun, latestPruneRun, PRUNE_LOG_RETENTION, type PruneRun } from './prune-log.js';
export { mixerChannelsFor, readMixerChanges, channelView, postgresMixerFeed } from './mixer-store.js';
export { postgresPruneCatalog, postgresSpeechCatalog, postgresMixdownCatalog } from './catalogs.js';
export { PostgresMediaStore } from './postgres-media-store.js';
export { lockSpeechQueueOf, speechJobsOf } from './speech-jobs.js';
export { saveTranscription, transcriptionSegments, postgresTranscriptionCatalog } from './transcription-store.js';
