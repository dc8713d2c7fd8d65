import type { Logger } from '@inntak/core';
import type { ChangeNotice } from '@inntak/access';
import type { WebhookTarget } from './ports.js';
import { tokenHash, type KeptTarget, type Spool } from './spool.js';

/** Known webhooks read again per query after a reconnect. */
const RELOAD_PAGE = 500;

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
    const target = this.byHash.get(tokenHash(token));
    if (target?.previousToken && Date.parse(target.previousToken.until) <= this.now()) return undefined;
    return target;
  }

  /** What the database answered for a token; written to the store only when it changed. */
  remember(token: string, target: WebhookTarget): void {
    const hash = tokenHash(token);
    const before = this.byHash.get(hash);
    if (before && JSON.stringify(before) === JSON.stringify(target)) return;
    this.put(hash, target);
    this.persist(target.webhookId);
  }

  /** The database said no webhook has this token (rotated away, its grace over, or never). */
  unknown(token: string): void {
    const hash = tokenHash(token);
    const target = this.byHash.get(hash);
    if (!target) return;
    this.byHash.delete(hash);
    this.hashesOf.get(target.webhookId)?.delete(hash);
    this.persist(target.webhookId);
  }

  forget(webhookId: string): void {
    const hashes = this.hashesOf.get(webhookId);
    if (hashes === undefined) return;
    for (const hash of hashes) this.byHash.delete(hash);
    this.hashesOf.delete(webhookId);
    this.store.forgetTarget(webhookId).catch((error: unknown) => {
      this.logger.error('could not forget a webhook target in the intake spool', { webhook_id: webhookId, error: String(error) });
    });
  }

  /**
   * A burst of the change stream: a change of a known webhook's node (`inntak_nodes`, its id) or
   * of its secret or grace (`inntak_webhooks`, its `webhook_id`) reads its tokens again.
   */
  async onBurst(notices: ChangeNotice[]): Promise<void> {
    const changed = new Set<string>();
    for (const notice of notices) {
      const id = notice.channel === 'inntak_nodes' ? notice.payload.id : notice.payload.webhook_id;
      if (typeof id === 'string' && this.hashesOf.has(id)) changed.add(id);
    }
    if (changed.size > 0) await this.refresh([...changed]);
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
      for (const hash of this.hashesOf.get(id) ?? []) this.byHash.delete(hash);
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
          this.byHash.delete(other);
        }
      }
    }
    hashes.add(hash);
    this.byHash.set(hash, target);
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
