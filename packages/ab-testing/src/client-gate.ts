import { createHmac, timingSafeEqual } from 'node:crypto';
import { processKey, underSharedKey, type Logger, type SharedKey } from '@inntak/core';

/**
 * An anonymous reader as the API tells them apart (apps/api pages/public-clients.ts): keyed
 * hashes, never an address.
 */
export interface AbReader {
  /** The reader's network (an IPv6 /48, IPv4 the address): the unit whose clients are capped. */
  network: string;
  /** The address and the User-Agent: the unit counted. */
  client: string;
}

/** A front-page impression as the store keeps it: which variant the client was shown first in the window. */
export interface ImpressionRow {
  article: string;
  /** The impression's id (what the signed /t link names): a keyed hash of window, client, publication and article. */
  id: string;
  variant: string;
}

/**
 * Where the impressions of the current and previous window are kept: the database for a fleet
 * (every API process must see the same ones, issue 38), memory for a bare app.
 */
export interface ImpressionStore {
  /**
   * Records the rows not recorded yet for this client in this window, if the client is one of
   * at most `cap` of its network; answers each asked article's recorded variant and whether this
   * call recorded it (counted).
   */
  record(window: number, who: AbReader, cap: number, publicationId: string, rows: ImpressionRow[]): Promise<{ article: string; variant: string; counted: boolean }[]>;
  /** Marks the impression clicked; true only the first time, for its variant, in one of `windows`. */
  click(windows: number[], id: string, publicationId: string, articleId: string, variantId: string): Promise<boolean>;
  /** Forgets the windows before `window`. */
  prune(window: number): Promise<void>;
}

export interface AbClientGateOptions {
  /** AB_CLIENT_WINDOW_HOURS: a client counts once per test per window (default 24 h). */
  windowMs?: number;
  /** AB_CLIENTS_PER_ADDRESS: clients (address + User-Agent) of one network (an IPv4 address, an IPv6 /48) that count per window (default 16). */
  clientsPerAddress?: number;
  /** Where impressions are kept (default: memory, this process only). */
  store?: ImpressionStore;
  /** The key signing impression ids (server_secrets `ab_impression` in a fleet). */
  key?: SharedKey;
  clock?: () => number;
  logger?: Logger;
}

/**
 * Which impressions and clicks of front-page variants count, so that one client cannot decide
 * an A/B test: per fixed window (AB_CLIENT_WINDOW_HOURS), a client counts at most one
 * impression per article of a publication (the first variant it was shown). That impression's
 * id is signed (HMAC-SHA256 with the window, publication, article and variant) into the /t
 * link; a click counts only with a valid signed id, at most once per impression (issue 24), so
 * clicks never exceed impressions. One network counts as at most AB_CLIENTS_PER_ADDRESS clients
 * per window. Kept in the store for the current and the previous window (a click shortly after
 * the turn still finds its impression), so a click on another API process than its impression
 * counts, and a reload through another process does not count again (issue 38).
 */
export class AbClientGate {
  private readonly windowMs: number;
  private readonly clientsPerAddress: number;
  private readonly clock: () => number;
  private readonly store: ImpressionStore;
  private readonly key: SharedKey;
  private pruned = -1;

  constructor(private readonly options: AbClientGateOptions = {}) {
    this.windowMs = options.windowMs ?? 24 * 3600_000;
    this.clientsPerAddress = options.clientsPerAddress ?? 16;
    this.clock = options.clock ?? Date.now;
    this.store = options.store ?? new MemoryImpressionStore();
    this.key = options.key ?? processKey();
  }

  /**
   * A render showing `shown` (article → variant) to this client. Counts the client's first of
   * each article in this window (the variants returned in `counted`); a later render of the same
   * variant gets the same signed id (a reader who reloads and then clicks still counts once), one
   * of another variant none. The shown variants not counted come back in `uncounted` with why:
   * `repeat` (the client was counted for the article this window), `address_cap` (the store
   * recorded nothing: the network is over its cap, or a bare app's memory store is full).
   */
  async impressions(
    who: AbReader,
    publicationId: string,
    shown: Map<string, string>,
  ): Promise<{ tokens: Map<string, string>; counted: string[]; uncounted: { variant: string; reason: 'address_cap' | 'repeat' }[] }> {
    const window = await this.turn();
    const key = await this.key.current();
    const rows = [...shown].map(([article, variant]) => ({ article, variant, id: impressionId(key, window, who.client, publicationId, article) }));
    const recorded = await this.store.record(window, who, this.clientsPerAddress, publicationId, rows);
    const tokens = new Map<string, string>();
    const counted: string[] = [];
    const uncounted: { variant: string; reason: 'address_cap' | 'repeat' }[] = [];
    const answered = new Set(recorded.map((r) => r.article));
    for (const [article, variant] of shown) if (!answered.has(article)) uncounted.push({ variant, reason: 'address_cap' });
    for (const row of recorded) {
      if (!row.counted) uncounted.push({ variant: shown.get(row.article)!, reason: 'repeat' });
      if (shown.get(row.article) !== row.variant) continue;
      if (row.counted) counted.push(row.variant);
      const id = rows.find((r) => r.article === row.article)!.id;
      tokens.set(row.article, `${window}.${id}.${signature(key, window, id, publicationId, row.article, row.variant)}`);
    }
    return { tokens, counted, uncounted };
  }

  /** True when this click counts: a valid signed impression id of this variant, in this window or the one before, not clicked yet. */
  async click(token: string | undefined, publicationId: string, articleId: string, variantId: string): Promise<boolean> {
    const parts = token?.split('.');
    if (parts?.length !== 3) return false;
    const [windowText, id, given] = parts as [string, string, string];
    const window = Number(windowText);
    const now = await this.turn();
    if (window !== now && window !== now - 1) return false;
    const givenBytes = Buffer.from(given);
    const valid = (key: Uint8Array) => {
      const expected = Buffer.from(signature(key, window, id, publicationId, articleId, variantId));
      return givenBytes.length === expected.length && timingSafeEqual(givenBytes, expected);
    };
    if (!(await underSharedKey(this.key, valid))) return false;
    return this.store.click([now, now - 1], id, publicationId, articleId, variantId);
  }

  /** The current window; the first call in a new window forgets the ones before the previous. */
  private async turn(): Promise<number> {
    const window = Math.floor(this.clock() / this.windowMs);
    if (window !== this.pruned) {
      this.pruned = window;
      await this.store.prune(window - 1).catch((err: unknown) => this.options.logger?.warn('old A/B impressions could not be deleted', { error: (err as Error).message }));
    }
    return window;
  }
}

function impressionId(key: Uint8Array, window: number, client: string, publicationId: string, articleId: string): string {
  return createHmac('sha256', key).update(`id\n${window}\n${client}\n${publicationId}\n${articleId}`).digest('base64url').slice(0, 16);
}

function signature(key: Uint8Array, window: number, id: string, publicationId: string, articleId: string, variantId: string): string {
  return createHmac('sha256', key).update(`${window}\n${id}\n${publicationId}\n${articleId}\n${variantId}`).digest('base64url').slice(0, 22);
}

interface MemoryRecord extends ImpressionRow {
  window: number;
  client: string;
  network: string;
  publicationId: string;
  clicked: boolean;
}

/** Impressions of one process, bounded by `maxRecords` (a bare app, unit tests). */
export class MemoryImpressionStore implements ImpressionStore {
  private readonly records = new Map<string, MemoryRecord>();

  constructor(private readonly maxRecords = 200_000) {}

  record(window: number, who: AbReader, cap: number, publicationId: string, rows: ImpressionRow[]): Promise<{ article: string; variant: string; counted: boolean }[]> {
    const all = [...this.records.values()].filter((r) => r.window === window && r.network === who.network);
    const clients = new Set(all.map((r) => r.client));
    const allowed = clients.has(who.client) || clients.size < cap;
    return Promise.resolve(
      rows.flatMap((row): { article: string; variant: string; counted: boolean }[] => {
        const key = `${window}|${who.client}|${publicationId}|${row.article}`;
        const known = this.records.get(key);
        if (known) return [{ article: row.article, variant: known.variant, counted: false }];
        if (!allowed || this.records.size >= this.maxRecords) return [];
        this.records.set(key, { ...row, window, client: who.client, network: who.network, publicationId, clicked: false });
        return [{ article: row.article, variant: row.variant, counted: true }];
      }),
    );
  }

  click(windows: number[], id: string, publicationId: string, articleId: string, variantId: string): Promise<boolean> {
    for (const r of this.records.values()) {
      if (r.id === id && windows.includes(r.window) && r.publicationId === publicationId && r.article === articleId && r.variant === variantId && !r.clicked) {
        r.clicked = true;
        return Promise.resolve(true);
      }
    }
    return Promise.resolve(false);
  }

  prune(window: number): Promise<void> {
    for (const [key, r] of this.records) if (r.window < window) this.records.delete(key);
    return Promise.resolve();
  }
}
