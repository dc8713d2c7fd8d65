export type { Database, NodeRow, EdgeRow } from './schema.js';
export { openDatabase, type Db, type DatabaseHandle, type DatabaseOptions } from './database.js';
export { migrate, MIGRATIONS_DIR, type MigrationReport } from './migrate.js';
export { startEmbeddedPostgres, type EmbeddedServer } from './embedded-server.js';
export { PostgresIntakeStore } from './intake-store.js';
export { PostgresIdentityDirectory } from './identity-directory.js';
export { propagateBelongsTo } from './access-propagation.js';
export { createPerson, createCollection, createWebhook } from './graph-writes.js';
export { createTestDatabase, type TestDatabase } from './test-database.js';
