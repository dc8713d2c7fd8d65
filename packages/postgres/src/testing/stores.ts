import type { Db } from '../platform/index.js';
import { PostgresGraphStore } from '../graph/index.js';
import { PostgresOrchestrationStore } from '../orchestration/index.js';
import { PostgresAbResults, PostgresPublishingStore } from '../publishing/index.js';
import { PostgresWebhookAdminStore } from '../intake/index.js';

/**
 * The PostgreSQL stores of one database, for tests and benches that set up a scene through the
 * domain use cases (`createPerson(storesOn(db).graph, …)` with createPerson from @inntak/access).
 * Only the stores: who acts is the caller's argument (e.g. OPERATOR), never chosen here.
 * Production binds use cases to stores in its composition roots.
 */
export interface Stores {
  graph: PostgresGraphStore;
  orchestration: PostgresOrchestrationStore;
  publishing: PostgresPublishingStore;
  abResults: PostgresAbResults;
  webhookAdmin: PostgresWebhookAdminStore;
}

export function storesOn(db: Db): Stores {
  return {
    graph: new PostgresGraphStore(db),
    orchestration: new PostgresOrchestrationStore(db),
    publishing: new PostgresPublishingStore(db),
    abResults: new PostgresAbResults(db),
    webhookAdmin: new PostgresWebhookAdminStore(db),
  };
}
