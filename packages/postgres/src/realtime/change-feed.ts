import type { ChangeFeed, ChangeNotice, ChangeSubscriber, InitialSyncBounds } from '@inntak/access';
import type { Db } from '../platform/index.js';
import { ChangeListener } from './change-listener.js';
import { readChanges } from './change-reader.js';
import { loadInitialSync } from './initial-sync.js';

/**
 * The change stream's port over PostgreSQL: one LISTEN connection per subscriber (always the
 * primary: a standby cannot LISTEN), reads on `db`.
 */
export class PostgresChangeFeed implements ChangeFeed {
  constructor(
    private readonly db: Db,
    private readonly connectionString: string,
    /** Where initial_sync reads (a replica that has replayed every change so far); absent: `db`. */
    private readonly snapshotReader: () => Promise<Db> = async () => db,
  ) {}

  subscribe(subscriber: ChangeSubscriber): ChangeListener {
    return new ChangeListener({ ...subscriber, connectionString: this.connectionString });
  }

  readChanges(notices: ChangeNotice[]) {
    return readChanges(this.db, notices);
  }

  async initialSync(callerId: string, bounds: InitialSyncBounds) {
    return loadInitialSync(await this.snapshotReader(), callerId, bounds);
  }
}
