import { EventEmitter } from 'node:events';
import { LRUCache } from 'lru-cache';
import type { Logger } from '@inntak/core';
import type { ChangeFeed, ChangeNotice } from '@inntak/access';
import { TAGGED_EDGE_TYPE } from '@inntak/graph';
import { FRONT_PAGE_VARIANT, PUBLISHED_IN } from '@inntak/publishing';

/** Rendered pages (article HTML) held per API process, at most: 64 MB. */
const PAGE_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The published pages' models, cached in memory and dropped when the change stream says what
 * they were built from changed. Entries belong to a publication (`scope`) or to the routing
 * lookups (slug and Host → publication). An `epoch` guards against a load that raced an
 * invalidation: a value read before the change is not stored after it.
 */
export class PageCache {
  readonly events = new EventEmitter();
  /**
   * Bounded by entries and by the bytes their `weigh` reports (rendered pages; an unweighed
   * entry counts one byte); when either is reached the least recently used entries go first,
   * so keys a stranger makes up (random article ids, tags, hosts) push out one entry each
   * rather than emptying the cache. A value larger than the whole bound is not kept.
   */
  private readonly entries: LRUCache<string, { scope: string; value: unknown; bytes: number }>;
  /** Loads under way: concurrent misses of one key share one load (one query, one render). */
  private loading = new Map<string, { epoch: number; promise: Promise<unknown> }>();
  private epoch = 0;

  constructor(maxEntries = 10_000, maxBytes = PAGE_CACHE_MAX_BYTES) {
    this.entries = new LRUCache({ max: maxEntries, maxSize: maxBytes, sizeCalculation: (entry) => entry.bytes });
  }

  async get<T>(scope: string, key: string, load: () => Promise<T>, weigh?: (value: T) => number): Promise<T> {
    const hit = this.entries.get(key);
    if (hit) return hit.value as T;
    const epoch = this.epoch;
    const running = this.loading.get(key);
    if (running && running.epoch === epoch) return running.promise as Promise<T>;
    const promise = load();
    this.loading.set(key, { epoch, promise });
    try {
      const value = await promise;
      if (epoch === this.epoch && !this.entries.has(key)) {
        this.entries.set(key, { scope, value, bytes: Math.max(1, Math.ceil(weigh ? weigh(value) : 0)) });
      }
      return value;
    } finally {
      if (this.loading.get(key)?.promise === promise) this.loading.delete(key);
    }
  }

  /** Entries and bytes held (tests, metrics). */
  size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.entries.calculatedSize };
  }

  /** Drops the entries of these publications, and every routing lookup (a slug or domain may have moved). */
  invalidate(publicationIds: readonly string[]): void {
    this.epoch += 1;
    const scopes = new Set([...publicationIds, ROUTING]);
    const dropped = [...this.entries.entries()].filter(([, entry]) => scopes.has(entry.scope)).map(([key]) => key);
    for (const key of dropped) this.entries.delete(key);
    this.events.emit('invalidated', publicationIds);
  }

  clear(): void {
    this.epoch += 1;
    this.entries.clear();
    this.events.emit('invalidated', 'all');
  }
}

/** Scope of the slug and Host lookups. */
export const ROUTING = 'routing';

/**
 * A PageCache kept current by its own LISTEN connection on the change stream: per burst, one
 * query finds the publications the changed nodes and edges touch. A reconnect (notices may have
 * been missed) clears everything.
 */
export async function startPageCache(options: {
  feed: ChangeFeed;
  /**
   * The publications the changed nodes and edges touch, and those whose pages show media that
   * `makers` drew (packages/postgres publicationsTouched).
   */
  publicationsTouched(nodeIds: string[], edgeIds: string[], makers: string[]): Promise<string[]>;
  logger: Logger;
  backoffMs?: number;
}): Promise<{ cache: PageCache; stop(): Promise<void> }> {
  const cache = new PageCache();
  const listener = options.feed.subscribe({
    logger: options.logger,
    minBackoffMs: options.backoffMs,
    onReconnect: () => cache.clear(),
    onBurst: async (notices) => {
      // A notice too large for NOTIFY names only its overflow row: assume it touched everything.
      if (notices.some((n) => 'overflow' in n.payload)) return cache.clear();
      const { nodeIds, edgeIds, makers, direct } = keysOf(notices);
      const touched = await options.publicationsTouched(nodeIds, edgeIds, makers);
      const all = [...new Set([...direct, ...touched])];
      if (all.length > 0) cache.invalidate(all);
    },
  });
  await listener.start();
  return { cache, stop: () => listener.stop() };
}

/** Ids to look up, and publications a deleted row names itself (it can no longer be looked up). */
function keysOf(notices: readonly ChangeNotice[]): { nodeIds: string[]; edgeIds: string[]; makers: string[]; direct: string[] } {
  const nodeIds: string[] = [];
  const edgeIds: string[] = [];
  // Subjects of a removed grant: a has_media edge they drew may have stopped counting (pages.ts, mediaEdgeCounts).
  const makers: string[] = [];
  const direct: string[] = [];
  for (const { channel, payload } of notices) {
    const old = payload.old as Record<string, unknown> | undefined;
    if (channel === 'inntak_nodes') {
      if (old) {
        const metadata = old.metadata as Record<string, unknown> | undefined;
        if (metadata && 'publication' in metadata) direct.push(String(old.id));
      } else if (typeof payload.id === 'string') nodeIds.push(payload.id);
    } else if (channel === 'inntak_edges') {
      if (old) {
        if (old.edge_type === PUBLISHED_IN) direct.push(String(old.target_id));
        else if (old.edge_type === FRONT_PAGE_VARIANT) direct.push(String(old.source_id));
        else if (old.edge_type === TAGGED_EDGE_TYPE || old.edge_type === 'has_media' || old.edge_type === 'belongs_to') nodeIds.push(String(old.source_id));
        else if (old.edge_type === 'owner' || old.edge_type === 'member_of') makers.push(String(old.source_id));
      } else if (typeof payload.id === 'string') edgeIds.push(payload.id);
    }
  }
  return { nodeIds, edgeIds, makers, direct };
}
