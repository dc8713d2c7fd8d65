import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';
import type { Logger } from '@inntak/core';

/**
 * Anonymous readers of the published pages, told apart without cookies (issue 22, findings 4
 * and 10; docs/publishing.md "Who counts"). Nothing here stores an address: an address (IPv4,
 * or the /64 of an IPv6 address, which one subscriber usually holds whole), its network (IPv4
 * the address, IPv6 the /48) and the pair address + User-Agent are kept only as HMAC-SHA256
 * under a key made at start and never written anywhere, cut to 16 bytes.
 */
export interface PublicClient {
  /** Keyed hash of the address (the unit search limits count). */
  address: string;
  /**
   * Keyed hash of the network: an IPv6 /48, IPv4 the address (the unit whose clients A/B counting
   * caps: one holder of a /48 has 65,536 /64s, and so decided a test alone; second attack on issue 22).
   */
  network: string;
  /** Keyed hash of the address and the User-Agent (the unit A/B counting counts). */
  client: string;
}

export class ClientKeys {
  private readonly key = randomBytes(32);

  of(ip: string | undefined, userAgent: string | undefined): PublicClient {
    const address = this.hash(`a\n${addressPrefix(ip ?? '')}`);
    const network = this.hash(`n\n${networkPrefix(ip ?? '')}`);
    return { address, network, client: this.hash(`c\n${address}\n${(userAgent ?? '').slice(0, 512)}`) };
  }

  private hash(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url').slice(0, 22);
  }
}

/** IPv4 as is (an IPv4-mapped IPv6 address too); IPv6 cut to its first 64 bits. */
export function addressPrefix(ip: string): string {
  return ipPrefix(ip, 4);
}

/** IPv4 as is (an IPv4-mapped IPv6 address too); IPv6 cut to its first 48 bits, a site's usual allocation. */
export function networkPrefix(ip: string): string {
  return ipPrefix(ip, 3);
}

function ipPrefix(ip: string, groupsKept: 3 | 4): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (isIPv4(ip) || !isIPv6(ip)) return ip;
  const [head = '', tail] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, groupsKept)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::/${groupsKept * 16}`;
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
  impression(who: PublicClient, publicationId: string, articleId: string, variantId: string): ImpressionGrant {
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

export interface SearchLimitOptions {
  /** PUB_SEARCH_CONCURRENCY: searches running at once on this API process, all readers together (default 4). */
  concurrency?: number;
  /** PUB_SEARCHES_PER_MINUTE: searches one address may start per minute (default 30); one at a time. */
  perMinute?: number;
  /** Addresses tracked per minute; beyond, only the global cap applies (default 100,000). */
  maxAddresses?: number;
  clock?: () => number;
}

/**
 * The cap on /pub/{slug}/sok (issue 22, finding 10): each search is a ranked full-text query, so
 * one address runs one at a time and at most `perMinute` a minute, and all readers together at
 * most `concurrency` at once. A refusal says how long to wait (Retry-After, seconds).
 */
export class SearchLimiter {
  private readonly concurrency: number;
  private readonly perMinute: number;
  private readonly maxAddresses: number;
  private readonly clock: () => number;
  private running = 0;
  private readonly busy = new Set<string>();
  private minute = -1;
  private started = new Map<string, number>();

  constructor(options: SearchLimitOptions = {}) {
    this.concurrency = options.concurrency ?? 4;
    this.perMinute = options.perMinute ?? 30;
    this.maxAddresses = options.maxAddresses ?? 100_000;
    this.clock = options.clock ?? Date.now;
  }

  /** A release function when the search may run; otherwise the seconds to wait. */
  acquire(address: string): { release: () => void } | { retryAfter: number } {
    const now = this.clock();
    const minute = Math.floor(now / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.started = new Map();
    }
    const count = this.started.get(address) ?? 0;
    if (count >= this.perMinute) return { retryAfter: Math.max(1, Math.ceil(((minute + 1) * 60_000 - now) / 1000)) };
    if (this.busy.has(address) || this.running >= this.concurrency) return { retryAfter: 1 };
    if (count > 0 || this.started.size < this.maxAddresses) this.started.set(address, count + 1);
    this.busy.add(address);
    this.running += 1;
    let done = false;
    return {
      release: () => {
        if (done) return;
        done = true;
        this.busy.delete(address);
        this.running -= 1;
      },
    };
  }
}
