import express, { type Express } from 'express';
import { AppError, type Logger } from '@inntak/core';
import { findWebhook, receiveWebhook, type IntakeStore } from '@inntak/intake';
import { z } from 'zod';
import type { RouteRegistry } from './route-registry.js';

export interface WebhookIntakeDeps {
  store: IntakeStore;
  logger: Logger;
  bodyLimitBytes: number;
}

/** POST /api/webhook/{token}: public; the token in the path is the only credential. */
export function installWebhookIntake(app: Express, registry: RouteRegistry, deps: WebhookIntakeDeps): void {
  registry.describe({
    method: 'post',
    path: '/api/webhook/{token}',
    summary: 'Webhook intake: store the posted JSON as a content node in the webhook’s collection',
    description: 'Public: the token in the path is the credential. Any JSON body, or none (an empty object).',
    tags: ['webhooks'],
    auth: 'webhook_token',
    params: z.object({ token: z.uuid() }),
    body: z.unknown(),
    response: { status: 200, schema: z.looseObject({ node_id: z.uuid(), edge_id: z.uuid() }) },
    errors: [400, 404, 413],
  });
  // Read the raw bytes whatever the content type, so senders that omit or mislabel it still
  // get through; parseWebhookBody decides how to read them.
  const rawBody = express.raw({ type: () => true, limit: deps.bodyLimitBytes });
  app.post('/api/webhook/:token', rawBody, async (req, res) => {
    const target = await findWebhook(deps.store, req.params.token);
    const payload = parseWebhookBody(req.body, req.headers['content-type']);
    const result = await receiveWebhook(deps, {
      target,
      payload,
      headers: singleValued(req.headers),
    });
    res.status(200).json({ ...result.reply, node_id: result.node_id, edge_id: result.edge_id });
  });
}

/**
 * Any JSON value is a payload; no body is `{}`. A form-encoded body (Travis CI, Slack
 * interactive) carries its JSON in a `payload` field; a form without one (Slack slash commands,
 * outgoing webhooks) becomes an object of its fields.
 */
export function parseWebhookBody(body: unknown, contentType: string | undefined): unknown {
  if (!Buffer.isBuffer(body)) return {};
  const text = body.toString('utf8');
  if (text.trim() === '') return {};
  if (contentType && /^application\/x-www-form-urlencoded\b/i.test(contentType)) {
    const form = new URLSearchParams(text);
    const payload = form.get('payload');
    return payload === null ? Object.fromEntries(form) : parseJson(payload);
  }
  return parseJson(text);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError('invalid_json', { detail: err instanceof Error ? err.message : undefined });
  }
}

/** Node already lower-cases header names; only repeated headers (arrays) need joining. */
function singleValued(headers: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}
