// Test-database helpers: not part of the runtime barrel.
export { createTestDatabase, openTestDatabase, type TestDatabase, type OpenTestDatabase } from './test-database.js';
export { insertNeverMatchingOrchestrations } from './never-matching-orchestrations.js';
export { storesOn, type Stores } from './stores.js';
