// The console at /studio (issue 26): its sessions and its own bounded reads.
export { PostgresStudioSessionStore } from './studio-sessions.js';
export { PostgresStudioReads } from './studio-reads.js';
