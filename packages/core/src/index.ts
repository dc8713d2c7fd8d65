export { AppError, coerceError, type ErrorCode } from './errors.js';
export { uuidv7, isUuid } from './ids.js';
export { withMeta, type Logger } from './logger.js';
export { storable, storableJson, mapJsonStrings } from './storable.js';
export { JSON_MAX_DEPTH, jsonNestsDeeperThan } from './json-depth.js';
export { RawJson, stringifyJson } from './raw-json.js';
export * as envVar from './config-schema.js';
export type { DatabaseStats, TableStats, IndexStats } from './database-stats.js';
export { onStopSignals, loadConfigOrExit } from './process-start.js';
