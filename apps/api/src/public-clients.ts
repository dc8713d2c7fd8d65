import { createHmac, randomBytes } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

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

// Which of their impressions and clicks count is A/B policy: AbClientGate, packages/ab-testing.

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
