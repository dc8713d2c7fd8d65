import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import { listDeliveries, rerenderNode, setWebhookSecret, SIGNATURE_SCHEMES, type DeliveriesStore } from '@inntak/intake';
import type { RouteRegistry } from '../route-registry.js';
import { Id, storableText, Timestamp } from '../schemas.js';

export interface DeliveriesDeps {
  deliveries: DeliveriesStore;
}

const TAGS = ['webhooks'];
const WHO = "For admins and owners of the webhook's collection, and system administrators.";

const Delivery = z.object({
  id: Id.describe('UUIDv7 made when the request arrived'),
  webhook_id: Id,
  received_at: Timestamp,
  status: z.number().int().describe('the HTTP status answered'),
  error: z.string().optional().describe('the error text answered (absent for 200)'),
  node_id: Id.optional().describe('the content node (for a duplicate: the first copy’s)'),
  edge_id: Id.optional(),
  delivery_id: z.string().optional().describe("the sender's delivery id (X-GitHub-Delivery, webhook-id, Slack's event_id, …)"),
  event: z.string().optional().describe("the event as the template or the sender's header names it"),
  duplicate: z.boolean().describe('a delivery id seen in the 24 hours before: answered with the first copy, nothing stored'),
  bytes: z.number().int().describe('body size as sent (Content-Length, else the bytes read)'),
  duration_ms: z.number().int().describe('from arrival to the write (200) or to the answer (failures); of counted refusals the longest'),
  previous_token: z.boolean().optional().describe('present (true) when the request came with a previous token within its grace period (rotate_webhook_token with grace_hours)'),
  count: z.number().int().optional().describe('refusals only: how many requests of this minute, status and reason the row counts (received_at, error, delivery_id and event are the first’s; bytes their sum)'),
  last_received_at: Timestamp.optional().describe('refusals only: when the last request the row counts arrived'),
});

const StatusFilter = z
  .union([z.literal('failed'), z.literal('duplicate'), z.coerce.number().int().min(100).max(599)])
  .describe('one HTTP status (e.g. 401), `failed` (anything but 200) or `duplicate`');

/**
 * Deliveries (docs/deliveries.md): a webhook's delivery log, its signing secret, re-rendering
 * what it delivered. The intake
 * itself (logging, duplicates, signature checks) is webhook-intake.ts.
 */
export function installDeliveries(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: DeliveriesDeps): void {
  registry.route(
    app,
    {
      method: 'get',
      path: '/admin/webhooks/{id}/deliveries',
      summary: "A webhook's delivery log, newest first: every request to its URL and what became of it",
      description:
        `${WHO} Accepted deliveries a row each; refusals (anything but 200) counted, one row per minute, status and reason (count). ` +
        'Kept 30 days, at most 10,000 accepted and 10,000 refusal rows per webhook. Keyset pagination: pass next_cursor as cursor.',
      tags: TAGS,
      auth: 'jwt',
      params: z.object({ id: Id }),
      query: z.object({
        status: StatusFilter.optional(),
        limit: z.coerce.number().int().min(1).max(200).default(50),
        cursor: Id.optional(),
      }),
      response: { status: 200, schema: z.object({ deliveries: z.array(Delivery), next_cursor: Id.nullable() }) },
      errors: [400, 401, 403, 404],
    },
    auth,
    async ({ params, query, caller }) => listDeliveries(deps.deliveries, caller, params.id, { limit: query.limit, before: query.cursor, status: query.status }),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/set_webhook_secret',
      summary: "Require signed requests on a webhook (the sender's scheme and secret), or stop requiring them (`none`)",
      description: `${WHO} The answer names the scheme only; no read ever returns the secret. Rotating the token keeps it.`,
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({
        webhook_id: Id,
        scheme: z.enum([...SIGNATURE_SCHEMES, 'none']),
        secret: storableText(z.string().max(1024)).nullish().describe('required unless scheme is none'),
      }),
      response: { status: 200, schema: z.object({ webhook_id: Id, scheme: z.enum([...SIGNATURE_SCHEMES, 'none']) }) },
      errors: [400, 401, 403, 404],
    },
    auth,
    async ({ body, caller }) => setWebhookSecret(deps.deliveries, caller, body),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/rerender',
      summary: "Render a webhook content node's stored payload again with its webhook's current template",
      description:
        "For admins and owners of the node's collection, and system administrators. Title, content and the template's metadata keys " +
        '(template, template_version, sender, event, …) are replaced; the payload and other keys stay. 409 when the webhook is gone.',
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ node_id: Id }),
      response: {
        status: 200,
        schema: z.object({
          node_id: Id,
          title: z.string().nullable(),
          template_id: z.string().nullable().describe('the template that rendered it; null: generic extraction'),
          template_version: z.number().int().nullable(),
        }),
      },
      errors: [400, 401, 403, 404, 409],
    },
    auth,
    async ({ body, caller }) => rerenderNode(deps.deliveries, caller, body.node_id),
  );
}
