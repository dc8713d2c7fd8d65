import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from '@inntak/core';

/**
 * An anonymous reader as the API tells them apart (apps/api public-clients.ts): keyed hashes,
 * never an address.
 */
export interface AbReader {
  /** The reader's network (an IPv6 /48, IPv4 the address): the unit whose clients are capped. */
  network: string;
  /** The address and the User-Agent: the unit counted. */
  client: string;
}

export interface AbClientGateOptions {
  /** AB_CLIENT_WINDOW_HOURS: a client counts once per test per window (default 24 h). */
  windowMs?: number;
  /** AB_CLIENTS_PER_ADDRESS: clients (address + User-Agent) of one network (an IPv4 address, an IPv6 /48) that count per window (default 16). */
  clientsPerAddress?: number;
  /** Records kept per window; beyond, new impressions are not counted (default 200,000). */
  maxRecords?: number;
  clock?: () => number;
  logger?: Logger;
}

interface ImpressionRecord {
  /** Random, 8 bytes base64url: what the signed impression id in the /t link names. */
  id: string;
  variant: string;
  clicked: boolean;
}

interface Generation {
  index: number;
  records: Map<string, ImpressionRecord>;
  byId: Map<string, ImpressionRecord>;
  addresses: Map<string, Set<string>>;
}

/** What a front-page render of a variant may count, and the impression id its /t link carries. */
export interface ImpressionGrant {
  /** True when this render counts an impression: the client's first of the article in this window. */
  counted: boolean;
  /** The signed impression id for the /t link (also on a reload of a counted impression); absent: a click counts nothing. */
  token?: string;
}

/**
 * Which impressions and clicks of front-page variants count, so that one client cannot decide
 * an A/B test: per fixed window (AB_CLIENT_WINDOW_HOURS), a client counts at most one
 * impression per article of a publication (the first variant it was shown). That impression
 * gets an id, signed (HMAC-SHA256 under a key made at start, with the window, publication,
 * article and variant) into the /t link; a click counts only with a valid signed id, at most
 * once per impression (issue 24). Clicks therefore never exceed impressions. One network (an
 * IPv4 address, an IPv6 /48) counts as at most AB_CLIENTS_PER_ADDRESS clients per window (a new
 * User-Agent per request does not make a new reader). Kept in memory per API process: the
 * current and the previous window (a click shortly after the turn still finds its impression),
 * each bounded by maxRecords.
 */
export class AbClientGate {
  private readonly windowMs: number;
  private readonly clientsPerAddress: number;
  private readonly maxRecords: number;
  private readonly clock: () => number;
  private readonly key = randomBytes(32);
  private current: Generation;
  private previous: Generation | undefined;
  private warnedFull = false;

  constructor(private readonly options: AbClientGateOptions = {}) {
    this.windowMs = options.windowMs ?? 24 * 3600_000;
    this.clientsPerAddress = options.clientsPerAddress ?? 16;
    this.maxRecords = options.maxRecords ?? 200_000;
    this.clock = options.clock ?? Date.now;
    this.current = this.generation(this.windowIndex());
  }

  /**
   * A render of `variantId` for this client. Counts the client's first of the article in this
   * window; a later render of the same variant gets the same signed id (a reader who reloads and
   * then clicks still counts once), one of another variant none.
   */
  impression(who: AbReader, publicationId: string, articleId: string, variantId: string): ImpressionGrant {
    const now = this.turn();
    const key = `${who.client}|${publicationId}|${articleId}`;
    const known = now.records.get(key);
    if (known) return known.variant === variantId ? { counted: false, token: this.sign(now.index, known.id, publicationId, articleId, variantId) } : { counted: false };
    // Capped per network (an IPv6 /48, an IPv4 address): a /64 each does not make new readers.
    let clients = now.addresses.get(who.network);
    if (!clients?.has(who.client)) {
      if (clients && clients.size >= this.clientsPerAddress) return { counted: false };
      if (!this.room(now)) return { counted: false };
      if (!clients) now.addresses.set(who.network, (clients = new Set()));
      clients.add(who.client);
    }
    if (!this.room(now)) return { counted: false };
    const record = { id: randomBytes(8).toString('base64url'), variant: variantId, clicked: false };
    now.records.set(key, record);
    now.byId.set(record.id, record);
    return { counted: true, token: this.sign(now.index, record.id, publicationId, articleId, variantId) };
  }

  /** True when this click counts: a valid signed impression id of this variant, in this window or the one before, not clicked yet. */
  click(token: string | undefined, publicationId: string, articleId: string, variantId: string): boolean {
    const parts = token?.split('.');
    if (parts?.length !== 3) return false;
    const [windowText, id, signature] = parts as [string, string, string];
    const index = Number(windowText);
    const now = this.turn();
    const generation = index === now.index ? now : index === this.previous?.index ? this.previous : undefined;
    if (!generation) return false;
    const expected = Buffer.from(this.signature(index, id, publicationId, articleId, variantId));
    const given = Buffer.from(signature);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return false;
    const record = generation.byId.get(id);
    if (!record || record.variant !== variantId || record.clicked) return false;
    record.clicked = true;
    return true;
  }

  private sign(index: number, id: string, publicationId: string, articleId: string, variantId: string): string {
    return `${index}.${id}.${this.signature(index, id, publicationId, articleId, variantId)}`;
  }

  private signature(index: number, id: string, publicationId: string, articleId: string, variantId: string): string {
    return createHmac('sha256', this.key).update(`${index}\n${id}\n${publicationId}\n${articleId}\n${variantId}`).digest('base64url').slice(0, 22);
  }

  private room(now: Generation): boolean {
    if (now.records.size + now.addresses.size < this.maxRecords) return true;
    if (!this.warnedFull) {
      this.warnedFull = true;
      this.options.logger?.warn('AB client records full for this window: further impressions are not counted until it turns', { max: this.maxRecords });
    }
    return false;
  }

  private windowIndex(): number {
    return Math.floor(this.clock() / this.windowMs);
  }

  private turn(): Generation {
    const index = this.windowIndex();
    if (index !== this.current.index) {
      this.previous = index === this.current.index + 1 ? this.current : undefined;
      this.current = this.generation(index);
      this.warnedFull = false;
    }
    return this.current;
  }

  private generation(index: number): Generation {
    return { index, records: new Map(), byId: new Map(), addresses: new Map() };
  }
}
