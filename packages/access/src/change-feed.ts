import type { Logger } from '@inntak/core';
import type { GraphEdge, GraphNode } from '@inntak/graph';
import type { AudienceFacts } from './audience.js';
import type { AccessRow } from './levels.js';

/**
 * The change stream's port (docs/realtime.md): notices of changed rows, read back as full rows
 * with the facts their audience is computed from (audience.ts), and the snapshot a newly
 * connected client starts from. packages/postgres/src/realtime implements it with LISTEN/NOTIFY.
 */
export type ChangeChannel = 'inntak_nodes' | 'inntak_edges' | 'inntak_access' | 'inntak_mixer' | 'inntak_webhooks';

export interface ChangeNotice {
  channel: ChangeChannel;
  payload: Record<string, unknown>;
}

export type ChangeOp = 'insert' | 'update' | 'delete';

export type Change =
  | { table: 'nodes'; op: ChangeOp; at: string; row: GraphNode; facts: AudienceFacts | null }
  | { table: 'edges'; op: ChangeOp; at: string; row: GraphEdge; source: AudienceFacts | null; target: AudienceFacts | null }
  | { table: 'node_access'; op: ChangeOp; at: string; row: AccessRow; object: AudienceFacts | null; node: GraphNode | null };

export interface InitialSyncBounds {
  /** The most recently created collections the caller may see. */
  collections: number;
  /** The latest nodes shown per collection. */
  nodesPerCollection: number;
}

export interface InitialSync {
  person: GraphNode | null;
  collections: Array<{ collection: GraphNode; nodes: GraphNode[] }>;
}

export interface ChangeSubscriber {
  logger: Logger;
  /** Called with every notice that arrived while the previous burst was being handled, in order. */
  onBurst(notices: ChangeNotice[]): Promise<void>;
  /** Called after the connection was lost and made again: notices in between were missed. */
  onReconnect(): void;
  /** Called with true when the stream listens (first and after each reconnect), false when it lost its connection or stopped. */
  onLive?(live: boolean): void;
  /** The channels it needs (default: all); each notice costs the listener's session and process a read. */
  channels?: readonly ChangeChannel[];
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

export interface ChangeSubscription {
  /** Starts listening; rejects when the first connection fails (start-up should say so). */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface ChangeFeed {
  subscribe(subscriber: ChangeSubscriber): ChangeSubscription;
  /** A burst of notices as changes with full rows (one query per table per burst). */
  readChanges(notices: ChangeNotice[]): Promise<Change[]>;
  /** What a freshly connected client needs to start, through the read rules, within `bounds`. */
  initialSync(callerId: string, bounds: InitialSyncBounds): Promise<InitialSync>;
}
