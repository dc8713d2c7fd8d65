import { describe, expect, it } from '@jest/globals';
import { OPERATOR } from '@inntak/access';
import { rerenderWebhook, setWebhookSecret } from './delivery-admin.js';
import type { DeliveriesStore, DeliveriesTx } from './ports.js';

/** A store the refusals below must never reach: they are decided before anything is read or written. */
const untouched: DeliveriesStore = {
  transaction: () => Promise.reject(new Error('the store was asked')),
};

describe('deliveries use cases', () => {
  it('set_webhook_secret refuses a missing or malformed secret before the store is asked', async () => {
    const webhook_id = '0190a5e0-0000-7000-8000-000000000002';
    await expect(setWebhookSecret(untouched, OPERATOR, { webhook_id, scheme: 'github' })).rejects.toMatchObject({ code: 'invalid_input', detail: 'secret: mangler' });
    await expect(setWebhookSecret(untouched, OPERATOR, { webhook_id, scheme: 'standard-webhooks', secret: '%%%' })).rejects.toMatchObject({
      code: 'invalid_input',
      detail: 'secret: må være en base64-nøkkel, gjerne med prefikset whsec_',
    });
  });

  it('the batch rerender of a webhook that is gone answers 409 and renders nothing', async () => {
    // Gone between the access check and the template's read: the check passes, the read finds nothing.
    const gone = {
      levelOn: async () => ({ level: 'admin', nodeKind: 'webhook' }),
      firstCollectionOf: async () => '0190a5e0-0000-7000-8000-000000000004',
      webhookTemplate: async () => undefined,
      countDelivered: async () => 0,
      deliveredNodes: () => Promise.reject(new Error('no nodes are read for a webhook that is gone')),
    } as unknown as DeliveriesTx;
    const store: DeliveriesStore = { transaction: (work) => work(gone) };
    await expect(rerenderWebhook(store, OPERATOR, { webhookId: '0190a5e0-0000-7000-8000-000000000003' })).rejects.toMatchObject({
      code: 'conflict',
      detail: 'webhooken som leverte noden finnes ikke lenger',
    });
  });
});
