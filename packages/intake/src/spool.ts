import { createHash } from 'node:crypto';
import { stringifyJson } from '@inntak/core';
import type { NewEdge, NewNode } from '@inntak/graph';
import type { DeliveryLogEntry, WebhookTarget } from './ports.js';

/**
 * The durable spool (issue 37, docs/deliveries.md#outages). Glossary:
 * - entry: one accepted delivery the database did not take, with everything its write needs;
 *   its node id is its key (a replay that finds the node written drops the entry).
 * - ref: where the adapter keeps an entry (a row id, a stream sequence), to remove it by.
 * - target: a webhook as the token lookup yields it, kept by the token's hash so a request to a
 *   known webhook is accepted while the database is away.
 */
export interface SpoolEntry {
  node: NewNode;
  edge: NewEdge;
  log: DeliveryLogEntry;
}

export interface SpooledEntry extends SpoolEntry {
  ref: number;
  bytes: number;
}

export interface SpoolStats {
  entries: number;
  bytes: number;
  /** When the oldest waiting entry arrived; null when none waits. */
  oldestAt: Date | null;
}

/** A webhook target as kept on disk: the token only by its hash. */
export interface KeptTarget {
  tokenHash: string;
  target: WebhookTarget;
}

/**
 * The spool's port. Two adapters: a local SQLite file (sqlite-spool.ts) and a NATS JetStream
 * stream shared by a fleet (nats-spool.ts); spool.test.ts is the one suite both pass.
 */
export interface Spool {
  /**
   * Resolves once the entry is on disk. Appends arriving together share one flush. Rejects
   * with SpoolFullError when the spool holds its maximum of bytes.
   */
  append(entry: SpoolEntry): Promise<void>;
  /** The oldest `limit` entries, in arrival order. */
  peek(limit: number): Promise<SpooledEntry[]>;
  /** Drops written entries; a ref already gone (another process replayed it) is no error. */
  remove(refs: readonly number[]): Promise<void>;
  stats(): Promise<SpoolStats>;
  /** A webhook's tokens now (its token, previous tokens in their grace): replaces what was kept for it. */
  keepTargets(webhookId: string, kept: readonly KeptTarget[]): Promise<void>;
  forgetTarget(webhookId: string): Promise<void>;
  targets(): Promise<KeptTarget[]>;
  close(): Promise<void>;
}

export class SpoolFullError extends Error {
  constructor(readonly maxBytes: number) {
    super(`intake spool is full (${maxBytes} bytes)`);
    this.name = 'SpoolFullError';
  }
}

/** SHA-256 of the token as the lookup takes it (lower case): what the spool keeps instead of it. */
export function tokenHash(token: string): string {
  return createHash('sha256').update(token.toLowerCase()).digest('hex');
}

/** An entry as the adapters store it: JSON text (a payload kept as RawJson is written as is). */
export function encodeEntry(entry: SpoolEntry): string {
  // The metadata apart: stringifyJson writes a RawJson payload's text without parsing it again.
  const rest = JSON.stringify({ node: { ...entry.node, metadata: null }, edge: entry.edge, log: entry.log });
  return `{"metadata":${stringifyJson(entry.node.metadata)},${rest.slice(1)}`;
}

export function decodeEntry(text: string): SpoolEntry {
  const parsed = JSON.parse(text) as SpoolEntry & { metadata: NewNode['metadata']; log: DeliveryLogEntry & { receivedAt: string } };
  return {
    node: { ...parsed.node, metadata: parsed.metadata },
    edge: parsed.edge,
    log: { ...parsed.log, receivedAt: new Date(parsed.log.receivedAt) },
  };
}

export function encodeTarget(kept: KeptTarget): string {
  return JSON.stringify(kept);
}

export function decodeTarget(text: string): KeptTarget {
  return JSON.parse(text) as KeptTarget;
}
