import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import { inspectRequest, replayDelivery, renameWebhook, searchRequests, type InspectorStore, type WebhookAdminStore } from '@inntak/intake';
import type { RouteRegistry } from '../route-registry.js';
import { Id, storableText, Timestamp } from '../schemas.js';

export interface DeliveryInspectorDeps {
  deliveries: InspectorStore;
  webhookAdmin: WebhookAdminStore;
}

const TAGS = ['webhooks'];
const WHO = "For admins and owners of the webhook's collection, and system administrators.";

const Request = z.object({
  id: Id.describe('UUIDv7 made when the request arrived'),
  webhook_id: Id,
  received_at: Timestamp,
  status: z.number().int(),
  error: z.string().optional().describe('the exact reason of a refusal (Ugyldig signatur: signaturen mangler (X-Hub-Signature-256), …)'),
  delivery_id: z.string().optional().describe("the sender's delivery id (X-GitHub-Delivery, X-Gitea-Delivery, webhook-id, …)"),
  event: z.string().optional(),
  bytes: z.number().int(),
  duration_ms: z.number().int(),
  node_id: Id.optional(),
  duplicate: z.boolean(),
  replay_of: Id.optional().describe('the request this one replays'),
  counted: z.number().int().optional().describe('refusals past the first 20 of a minute: how many were only counted (no headers, no body)'),
  last_received_at: Timestamp.optional(),
});

const Detail = Request.extend({
  headers: z.record(z.string(), z.string()).describe('as received, secrets and signatures masked (••••••); the token (in the URL) is never kept'),
  body: z
    .object({ text: z.string(), truncated: z.boolean().describe('cut at 64 KiB'), from_node: z.boolean().describe("an accepted request's body is its content node's payload") })
    .nullable()
    .describe('null: refused before its body was read, or its node deleted'),
});

const StatusFilter = z.union([z.literal('failed'), z.literal('duplicate'), z.coerce.number().int().min(100).max(599)]);

/**
 * The delivery inspector (docs/deliveries.md#inspector): requests searched and read with their
 * masked headers and bodies, replayed; and renaming a webhook. Each route one use case of
 * packages/intake, as the console and the CLI call them.
 */
export function installDeliveryInspector(app: Express, registry: RouteRegistry, auth: RequestHandler, deps: DeliveryInspectorDeps): void {
  registry.route(
    app,
    {
      method: 'get',
      path: '/admin/webhooks/{id}/requests',
      summary: 'Requests to a webhook, accepted and refused, newest first; search by delivery id, event, status and time',
      description: `${WHO} Refused requests are kept whole 7 days (the first 20 of a minute per webhook; the rest counted). Keyset pagination: pass next_cursor as cursor.`,
      tags: TAGS,
      auth: 'jwt',
      params: z.object({ id: Id }),
      query: z.object({
        status: StatusFilter.optional(),
        delivery_id: storableText(z.string().min(1).max(200)).optional(),
        event: storableText(z.string().min(1).max(200)).optional(),
        from: Timestamp.optional(),
        to: Timestamp.optional(),
        limit: z.coerce.number().int().min(1).max(200).default(50),
        cursor: Id.optional(),
      }),
      response: { status: 200, schema: z.object({ requests: z.array(Request), next_cursor: Id.nullable() }) },
      errors: [400, 401, 403, 404],
    },
    auth,
    async ({ params, query, caller }) =>
      searchRequests(deps.deliveries, caller, params.id, {
        limit: query.limit,
        before: query.cursor,
        status: query.status,
        deliveryId: query.delivery_id,
        event: query.event,
        from: query.from ? new Date(query.from) : undefined,
        to: query.to ? new Date(query.to) : undefined,
      }),
  );

  registry.route(
    app,
    {
      method: 'get',
      path: '/admin/webhooks/{id}/requests/{request_id}',
      summary: 'One request to a webhook with its headers (secrets masked) and body',
      description: WHO,
      tags: TAGS,
      auth: 'jwt',
      params: z.object({ id: Id, request_id: Id }),
      response: { status: 200, schema: Detail },
      errors: [400, 401, 403, 404],
    },
    auth,
    async ({ params, caller }) => inspectRequest(deps.deliveries, caller, params.id, params.request_id),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/admin/webhooks/{id}/deliveries/{delivery_id}/replay',
      summary: "Replay a stored request through the webhook's current template: a new delivery (a new node), marked as a replay",
      description:
        `${WHO} delivery_id is the request's id in the log (not the sender's). The body replayed is the original's node payload (accepted) or its kept body (refused: ` +
        'its signature is not checked again). 409 when there is no whole body: refused before it was read, cut at 64 KiB, or its node deleted.',
      tags: TAGS,
      auth: 'jwt',
      params: z.object({ id: Id, delivery_id: Id }),
      response: { status: 201, schema: z.object({ id: Id.describe('the new log row'), node_id: Id, edge_id: Id, replay_of: Id }) },
      errors: [400, 401, 403, 404, 409],
    },
    auth,
    async ({ params, caller }) => replayDelivery(deps.deliveries, caller, { webhook_id: params.id, delivery_id: params.delivery_id }),
  );

  registry.route(
    app,
    {
      method: 'post',
      path: '/intentions/rename_webhook',
      summary: "Name a webhook (its node's title); null or empty clears the name",
      description: WHO,
      tags: TAGS,
      auth: 'jwt',
      body: z.strictObject({ webhook_id: Id, title: storableText(z.string().max(500)).nullable() }),
      response: { status: 200, schema: z.object({ id: Id, title: z.string().nullable() }) },
      errors: [400, 401, 403, 404],
    },
    auth,
    async ({ body, caller }) => {
      const renamed = await renameWebhook(deps.webhookAdmin, caller, body);
      return { id: renamed.id, title: renamed.title };
    },
  );
}
