import { OPERATOR } from '@inntak/access';
import { id, required, requireKind, type CommandSpec } from '../command-line.js';

/**
 * `inntak webhook replay`: a stored request rendered again through the webhook's current
 * template, a new delivery marked as a replay (replayDelivery, packages/intake; the same use
 * case as POST /admin/webhooks/{id}/deliveries/{delivery_id}/replay and the console's button).
 */
export const webhookReplay: CommandSpec = {
  name: 'webhook replay',
  args: '--webhook ID --delivery ID',
  summary: 'replay a stored request (its id in `webhook deliveries`) through the current template: {id, node_id, edge_id, replay_of}',
  options: {
    webhook: id('the webhook'),
    delivery: id("the request's id in the delivery log (not the sender's delivery id)"),
  },
  async run(options, context) {
    const webhookId = await requireKind(context, options, 'webhook', 'webhook');
    return context.services.replayDelivery(OPERATOR, { webhook_id: webhookId, delivery_id: required(options, 'delivery') });
  },
};
