import type { Logger } from '@inntak/core';
import type { ChangeNotice } from '@inntak/access';
import type { WebhookTarget } from './ports.js';
import { tokenHash, type Spool } from './spool.js';

/**
 * The webhooks the token lookup found, in memory and in the spool's store, so that while the
 * database is away a request to a known webhook is still accepted (issue 37) — and after a
 * restart during the outage too. The database stays the authority: while it answers every
 * lookup goes to it and refreshes this copy; the copy is only read while it does not. A change
 * of a webhook node (token rotated, template or locale set, node deleted) forgets the webhook at
 * once, so an old token is refused during a later outage; the next lookup learns it again.
 */
export class WebhookTargetCache {
  private readonly byHash = new Map<string, WebhookTarget>();
  private readonly hashOf = new Map<string, string>();

  constructor(
    private readonly store: Pick<Spool, 'keepTarget' | 'forgetTarget' | 'targets'>,
    private readonly logger: Logger,
  ) {}

  /** What the store kept: the webhooks known before this process started. */
  async load(): Promise<void> {
    for (const kept of await this.store.targets()) this.put(kept.tokenHash, kept.target);
  }

  get size(): number {
    return this.byHash.size;
  }

  known(token: string): WebhookTarget | undefined {
    return this.byHash.get(tokenHash(token));
  }

  /** What the database answered for a token; written to the store only when it changed. */
  remember(token: string, target: WebhookTarget): void {
    const hash = tokenHash(token);
    const before = this.byHash.get(hash);
    if (before && JSON.stringify(before) === JSON.stringify(target)) return;
    this.put(hash, target);
    this.store.keepTarget({ tokenHash: hash, target }).catch((error: unknown) => {
      this.logger.error('could not keep a webhook target in the intake spool', { webhook_id: target.webhookId, error: String(error) });
    });
  }

  /** The database said no webhook has this token (rotated away, or never). */
  unknown(token: string): void {
    const target = this.byHash.get(tokenHash(token));
    if (target) this.forget(target.webhookId);
  }

  forget(webhookId: string): void {
    const hash = this.hashOf.get(webhookId);
    if (hash === undefined) return;
    this.byHash.delete(hash);
    this.hashOf.delete(webhookId);
    this.store.forgetTarget(webhookId).catch((error: unknown) => {
      this.logger.error('could not forget a webhook target in the intake spool', { webhook_id: webhookId, error: String(error) });
    });
  }

  /** A burst of the change stream: any change of a known webhook node forgets it. */
  async onBurst(notices: ChangeNotice[]): Promise<void> {
    for (const notice of notices) {
      const id = notice.payload.id;
      if (notice.channel === 'inntak_nodes' && typeof id === 'string') this.forget(id);
      // A secret set or removed is announced on the webhook's node (its id in `webhook_id`).
      const webhookId = notice.payload.webhook_id;
      if (typeof webhookId === 'string') this.forget(webhookId);
    }
  }

  /**
   * Notices were missed while the stream was away. The stream loses its connection when the
   * database is away, and then no webhook can be changed through it either; forgetting them all
   * here would leave the next outage knowing none. So they are kept: while the database answers
   * every lookup refreshes them anyway. (A change made through another process while only this
   * process's stream was cut off is the one case kept stale until the webhook's next request.)
   */
  onReconnect(): void {
    this.logger.info('intake webhook targets kept over a change-stream reconnect', { known_webhooks: this.byHash.size });
  }

  private put(hash: string, target: WebhookTarget): void {
    const old = this.hashOf.get(target.webhookId);
    if (old !== undefined && old !== hash) this.byHash.delete(old);
    this.byHash.set(hash, target);
    this.hashOf.set(target.webhookId, hash);
  }
}
