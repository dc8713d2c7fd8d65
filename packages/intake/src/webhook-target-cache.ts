import type { Logger } from '@inntak/core';
import type { ChangeChannel, ChangeNotice } from '@inntak/access';
import type { WebhookTarget } from './ports.js';
import { tokenHash, type KeptTarget, type Spool } from './spool.js';

/** The change stream's channels whose notices can change a webhook's target (webhookOf). */
export const WEBHOOK_TARGET_CHANNELS: readonly ChangeChannel[] = ['inntak_nodes', 'inntak_edges', 'inntak_webhooks'];

/** Known webhooks read again per query after a reconnect. */
const RELOAD_PAGE = 500;

/**
 * How long a token is answered from memory before the database is asked again: a bound on what
 * no notice tells (a belongs_to edge drawn by hand that sorts first, a connection that hangs
 * without closing), at one lookup per webhook and process a minute.
 */
const SERVED_FOR_MS = 60_000;

/** Where the cache reads a changed webhook's tokens again (the database: PostgresIntakeStore). */
export interface WebhookTargetSource {
  /**
   * Every token each of these webhooks answers to now, by hash: its token, and previous tokens
   * still in their grace period (marked `previousToken`). A webhook that is gone has none.
   */
  targetsOf(webhookIds: readonly string[]): Promise<KeptTarget[]>;
}

/**
 * The webhooks the token lookup found, in memory and in the spool's store, so that while the
 * database is away a request to a known webhook is still accepted (issue 37) — and after a
 * restart during the outage too. The database stays the authority: while it answers every
 * lookup goes to it and refreshes this copy; the copy is only read while it does not.
 *
 * A webhook answers to its token and to previous tokens in their grace period (rotation with a
 * grace, docs/deliveries.md#rotation), so the copy holds a set of hashes per webhook. A change
 * of a known webhook on the change stream (token rotated, template or locale set, signing secret
 * set or removed, a grace ended, node deleted) reads its tokens again at once, so a new secret or
 * a rotated token is what a later outage knows; when that read fails the webhook is forgotten
 * (refused during the outage rather than accepted with stale facts).
 */
export class WebhookTargetCache {
  private readonly byHash = new Map<string, WebhookTarget>();
  private readonly hashesOf = new Map<string, Set<string>>();
  /** Hashes whose target is answered without asking the database (current()), until when (ms). */
  private readonly servable = new Map<string, number>();
  /** Whether the change stream listens now: only then does every change reach this copy. */
  private live = false;
  /** Bursts seen that could change some webhook's target (mark, remember). */
  private changes = 0;
  /** The reads of changed webhooks begun so far, chained (onBurst): an older answer never lands after a newer one. */
  private reads: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Pick<Spool, 'keepTargets' | 'forgetTarget' | 'targets'>,
    private readonly logger: Logger,
    private readonly source?: WebhookTargetSource,
    private readonly now: () => number = Date.now,
  ) {}

  /** What the store kept: the webhooks known before this process started. */
  async load(): Promise<void> {
    for (const kept of await this.store.targets()) this.put(kept.tokenHash, kept.target);
  }

  /** How many webhooks are known. */
  get size(): number {
    return this.hashesOf.size;
  }

  /** The webhook a token finds, if known; a previous token only until its grace ends. */
  known(token: string): WebhookTarget | undefined {
    return this.knownByHash(tokenHash(token));
  }

  private knownByHash(hash: string): WebhookTarget | undefined {
    const target = this.byHash.get(hash);
    if (target?.previousToken && Date.parse(target.previousToken.until) <= this.now()) return undefined;
    return target;
  }

  /**
   * The webhook a token finds, answered from memory while that is known to be what the database
   * would answer (issue 40: the lookup was one of an intake's two round trips). That holds while
   * the change stream listens and nothing about the webhook changed since the database said it:
   * a change notice of the webhook (token rotated, grace ended, secret, template or locale set,
   * node deleted, its belongs_to edge deleted) takes it out at once, before it is read again,
   * and a lost stream takes out all. So a rotated token stops working as soon as each process
   * hears of it (milliseconds), and while the stream is away every lookup asks the database;
   * whatever happens, it is asked again after SERVED_FOR_MS.
   */
  current(token: string): WebhookTarget | undefined {
    return this.currentByHash(tokenHash(token));
  }

  /** current() for a token's hash: the hot path hashes each token once. */
  private currentByHash(hash: string): WebhookTarget | undefined {
    if (!this.live) return undefined;
    const until = this.servable.get(hash);
    return until !== undefined && until > this.now() ? this.knownByHash(hash) : undefined;
  }

  /** What to hand to remember() for a lookup about to be asked: the changes seen so far. */
  get mark(): number {
    return this.changes;
  }

  /** Token lookups since start by what answered: memory (current()) or the database (lookup()). */
  readonly lookups = { memory: 0, database: 0 };

  /**
   * The intake's token lookup: from memory while that is current (current()), else `ask`ed of
   * the database, whose answer is remembered (and served from then on, see remember()).
   */
  async lookup(token: string, ask: (token: string) => Promise<WebhookTarget | undefined>): Promise<WebhookTarget | undefined> {
    const current = this.currentByHash(tokenHash(token));
    if (current) {
      this.lookups.memory++;
      return current;
    }
    const mark = this.mark;
    this.lookups.database++;
    const target = await ask(token);
    if (target) this.remember(token, target, mark);
    else this.unknown(token);
    return target;
  }

  /**
   * What the database answered for a token; written to the store only when it changed. With the
   * `mark` taken before the question, it is also answered from memory from now on (current()),
   * unless the stream was away or a change that could concern it was heard meanwhile: the
   * answer may then predate that change, whose notice found nothing here to take out.
   */
  remember(token: string, target: WebhookTarget, mark?: number): void {
    const hash = tokenHash(token);
    const before = this.byHash.get(hash);
    if (!before || JSON.stringify(before) !== JSON.stringify(target)) {
      this.put(hash, target);
      this.persist(target.webhookId);
    }
    if (mark !== undefined && mark === this.changes && this.live) this.servable.set(hash, this.now() + SERVED_FOR_MS);
  }

  /** The change stream listens (true) or lost its connection (false): in between, changes are missed. */
  onLive(live: boolean): void {
    this.live = live;
    this.changes++;
    this.servable.clear();
  }

  /** The database said no webhook has this token (rotated away, its grace over, or never). */
  unknown(token: string): void {
    const hash = tokenHash(token);
    const target = this.byHash.get(hash);
    if (!target) return;
    this.drop(hash);
    this.hashesOf.get(target.webhookId)?.delete(hash);
    this.persist(target.webhookId);
  }

  forget(webhookId: string): void {
    const hashes = this.hashesOf.get(webhookId);
    if (hashes === undefined) return;
    for (const hash of hashes) this.drop(hash);
    this.hashesOf.delete(webhookId);
    this.store.forgetTarget(webhookId).catch((error: unknown) => {
      this.logger.error('could not forget a webhook target in the intake spool', { webhook_id: webhookId, error: String(error) });
    });
  }

  /**
   * A burst of the change stream: a change of a known webhook's node (`inntak_nodes`, its id), of
   * its secret or grace (`inntak_webhooks`, its `webhook_id`) or the deletion of an edge from it
   * (`inntak_edges`, the old row's source: its collection may change) reads its tokens again,
   * and until then they are asked of the database. New nodes and edges change no webhook's
   * target (a webhook's collection is its first belongs_to), so intake's own notices pass by.
   */
  onBurst(notices: ChangeNotice[]): Promise<void> {
    const changed = new Set<string>();
    let any = false;
    for (const notice of notices) {
      const id = webhookOf(notice);
      if (id === undefined) continue;
      any = true;
      if (typeof id === 'string' && this.hashesOf.has(id)) changed.add(id);
      // Too large for NOTIFY (realtime_overflow): which webhook it concerns is not read here.
      if (id === OVERFLOW) this.servable.clear();
    }
    if (any) this.changes++;
    for (const id of changed) for (const hash of this.hashesOf.get(id) ?? []) this.servable.delete(hash);
    // The read is not awaited here: the change stream hands over its next burst only once this
    // one returned, and a notice of another webhook must take that one out at once, not after
    // this read (a busy pool, a slow database). Reads run one after another, in notice order.
    if (changed.size > 0) this.reads = this.reads.then(() => this.refresh([...changed]));
    return Promise.resolve();
  }

  /** Resolves once the webhooks changed so far are read again (tests, shutdown). */
  settled(): Promise<void> {
    return this.reads;
  }

  /**
   * Notices were missed while the stream was away (a secret set, a token rotated meanwhile):
   * every known webhook is read again, in pages. Should that read fail they are kept as they
   * were, not forgotten: the stream loses its connection when the database is away, and
   * forgetting them all would leave the next outage knowing none.
   */
  onReconnect(): void {
    this.logger.info('intake webhook targets read again after a change-stream reconnect', { known_webhooks: this.size });
    const ids = [...this.hashesOf.keys()];
    void (async () => {
      for (let i = 0; i < ids.length; i += RELOAD_PAGE) await this.refresh(ids.slice(i, i + RELOAD_PAGE), { forgetOnFailure: false });
    })();
  }

  private async refresh(webhookIds: string[], options = { forgetOnFailure: true }): Promise<void> {
    if (!this.source) {
      if (options.forgetOnFailure) for (const id of webhookIds) this.forget(id);
      return;
    }
    let fresh: KeptTarget[];
    try {
      fresh = await this.source.targetsOf(webhookIds);
    } catch (error) {
      this.logger.warn('could not read webhooks again', { webhooks: webhookIds.length, forgotten: options.forgetOnFailure, error: String(error) });
      if (options.forgetOnFailure) for (const id of webhookIds) this.forget(id);
      return;
    }
    for (const id of webhookIds) {
      const mine = fresh.filter((kept) => kept.target.webhookId === id);
      if (mine.length === 0) {
        this.forget(id);
        continue;
      }
      for (const hash of this.hashesOf.get(id) ?? []) this.drop(hash);
      this.hashesOf.delete(id);
      for (const kept of mine) this.put(kept.tokenHash, kept.target);
      this.persist(id);
    }
  }

  private put(hash: string, target: WebhookTarget): void {
    const id = target.webhookId;
    let hashes = this.hashesOf.get(id);
    if (!hashes) this.hashesOf.set(id, (hashes = new Set()));
    // A webhook has one current token: a new one replaces the old (previous tokens stay until their grace ends).
    if (!target.previousToken) {
      for (const other of hashes) {
        if (other !== hash && !this.byHash.get(other)?.previousToken) {
          hashes.delete(other);
          this.drop(other);
        }
      }
    }
    hashes.add(hash);
    this.byHash.set(hash, target);
  }

  private drop(hash: string): void {
    this.byHash.delete(hash);
    this.servable.delete(hash);
  }

  private persist(webhookId: string): void {
    const hashes = [...(this.hashesOf.get(webhookId) ?? [])];
    const kept = hashes.map((hash) => ({ tokenHash: hash, target: this.byHash.get(hash)! }));
    if (kept.length === 0) this.hashesOf.delete(webhookId);
    const write = kept.length === 0 ? this.store.forgetTarget(webhookId) : this.store.keepTargets(webhookId, kept);
    write.catch((error: unknown) => {
      this.logger.error('could not keep a webhook target in the intake spool', { webhook_id: webhookId, error: String(error) });
    });
  }
}

/**
 * The webhook a notice may concern: its id (undefined: the notice changes no webhook's target;
 * null: it may, but whose is not known, as for an update of a node not known here).
 */
const OVERFLOW = Symbol('overflow');

function webhookOf(notice: ChangeNotice): unknown {
  const { channel, payload } = notice;
  if (payload.overflow !== undefined) return channel === 'inntak_access' || channel === 'inntak_mixer' ? undefined : OVERFLOW;
  if (channel === 'inntak_webhooks') return payload.webhook_id ?? null;
  if (channel === 'inntak_nodes') return payload.op === 'insert' ? undefined : (payload.id ?? null);
  if (channel === 'inntak_edges' && payload.op === 'delete') return (payload.old as { source_id?: unknown } | undefined)?.source_id ?? null;
  return undefined;
}
