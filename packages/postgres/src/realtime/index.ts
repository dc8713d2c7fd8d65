// The change stream: LISTEN/NOTIFY listener, change reader, initial sync.
export { ChangeListener, CHANGE_CHANNELS, LISTENER_APPLICATION_NAME, type ChangeNotice, type ChangeChannel, type ChangeListenerOptions } from './change-listener.js';
export { readChanges, type Change, type ChangeOp } from './change-reader.js';
export { loadInitialSync, type InitialSync, type InitialSyncBounds } from './initial-sync.js';
export { PostgresChangeFeed } from './change-feed.js';
