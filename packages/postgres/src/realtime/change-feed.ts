import type { ChangeFeed, ChangeNotice, ChangeSubscriber, InitialSyncBounds } from '@inntak/access';
import type { Db, ReadOn } from '../platform/index.js';
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
    /** Where initial_sync reads (a replica that has replayed every change so far; the primary if it fails); absent: `db`. */
    private readonly snapshotRead: ReadOn = (fn) => fn(db),
  ) {}

  subscribe(subscriber: ChangeSubscriber): ChangeListener {
    return new ChangeListener({ ...subscriber, connectionString: this.connectionString });
  }

  readChanges(notices: ChangeNotice[]) {
    return readChanges(this.db, notices);
  }

  initialSync(callerId: string, bounds: InitialSyncBounds) {
    return this.snapshotRead((db) => loadInitialSync(db, callerId, bounds));
  }
}
