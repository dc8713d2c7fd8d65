// The platform: connections, schema types, migrations, the embedded server and database stats.
export type { Database, NodeRow, EdgeRow } from './schema.js';
export { connectionProblem, openDatabase, withClient, type Db, type DatabaseHandle, type DatabaseOptions, type PreparedStatement } from './database.js';
export { migrate, MIGRATIONS_DIR, type MigrationReport } from './migrate.js';
export { startEmbeddedPostgres, spawnEmbeddedPostgres, type EmbeddedServer } from './embedded-server.js';
export { readDatabaseStats, cachedDatabaseStats, type DatabaseStats, type TableStats, type IndexStats } from './database-stats.js';
export type { JobQueueRow, JobPriorityRuleRow, DiskStatusLogTable } from './schema.js';
export type { MixerChannelsTable } from './schema.js';
export { dumpSchema } from './schema-dump.js';
export { isDatabaseUnavailable } from './unavailable.js';
export { ReadReplicas, type ReadOn, type ReadReplica, type ReadReplicasOptions } from './read-replicas.js';
