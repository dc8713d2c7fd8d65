import type { NewEdge, NewNode } from '@inntak/graph';
import type { DeliveryLogEntry, FailedDelivery, IntakeStore, WebhookTarget, WriteOutcome } from './ports.js';
import type { WebhookTargetCache } from './webhook-target-cache.js';

/**
 * The intake store without a spool (SPOOL_DIR=off), with the known tokens answered from memory
 * as the spooling store answers them (WebhookTargetCache.lookup, issue 40): the change stream
 * keeps that copy current, here in memory alone.
 */
export class CachedLookupStore implements IntakeStore {
  constructor(
    private readonly store: IntakeStore,
    private readonly targets: WebhookTargetCache,
  ) {}

  findWebhookByToken(token: string): Promise<WebhookTarget | undefined> {
    return this.targets.lookup(token, (t) => this.store.findWebhookByToken(t));
  }

  writeContent(node: NewNode, edge: NewEdge, log: DeliveryLogEntry): Promise<WriteOutcome> {
    return this.store.writeContent(node, edge, log);
  }

  recordFailedDelivery(delivery: FailedDelivery): Promise<void> {
    return this.store.recordFailedDelivery(delivery);
  }
}
