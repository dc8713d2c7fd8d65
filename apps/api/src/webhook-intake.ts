import express, { type Express, type Request, type Response } from 'express';
import { AppError, type Logger } from '@inntak/core';
import { receiveWebhook, type IntakeStore } from '@inntak/intake';
import { z } from 'zod';
import { requestLogger } from './request-logging.js';
import { THREADED_RENDERER } from './webhook-intake-body.js';
import type { RouteRegistry } from './route-registry.js';

export interface WebhookIntakeDeps {
  store: IntakeStore;
  logger: Logger;
  bodyLimitBytes: number;
}

/** What the intake route leaves in `res.locals.intake` for the metrics. */
export interface IntakeOutcome {
  /** The webhook's template (`generic` when none or unknown); absent when no webhook was found. */
  template?: string;
  repairQueued?: boolean;
  /** A sender's delivery id seen within 24 hours: answered with the first copy, nothing stored. */
  duplicate?: boolean;
}

/**
 * POST /api/webhook/{token}: public; the token in the path is the only credential. The route
 * is the intake's door, `receiveWebhook` (packages/intake), with HTTP's part handed to it.
 *
 * The token is looked up before a byte of the body is read: a stranger's body (possibly a
 * small gzip that inflates to gigabytes) costs a 404 and a closed connection, nothing more.
 * Only then is the body read — inflated when gzip, deflate or br, at most BODY_LIMIT bytes
 * after inflating — and parsed (a large one on a worker thread: webhook-intake-body.ts).
 */
export function installWebhookIntake(app: Express, registry: RouteRegistry, deps: WebhookIntakeDeps): void {
  registry.describe({
    method: 'post',
    path: '/api/webhook/{token}',
    summary: 'Webhook intake: store the posted JSON as a content node in the webhook’s collection',
    description:
      'Public: the token in the path is the credential. Any JSON body, or none (an empty object). ' +
      'Content-Encoding gzip, deflate and br are inflated; the inflated body may be at most BODY_LIMIT bytes. ' +
      'A webhook with a signing secret (set_webhook_secret) answers 401 Ugyldig signatur without a valid signature. ' +
      "A sender's delivery id seen again within 24 hours answers the first copy's node_id and edge_id with duplicate: true and stores nothing.",
    tags: ['webhooks'],
    auth: 'webhook_token',
    params: z.object({ token: z.uuid() }),
    body: z.unknown(),
    bodyAlternatives: {
      'application/x-www-form-urlencoded': {
        schema: z.record(z.string(), z.string()),
        description: 'A form: its `payload` field holding JSON (Travis CI, Slack interactivity) is the payload; a form without one (Slack slash commands) becomes an object of its fields.',
      },
    },
    response: { status: 200, schema: z.looseObject({ node_id: z.uuid(), edge_id: z.uuid(), duplicate: z.literal(true).optional() }) },
    errors: [400, 401, 404, 413, 415],
  });
  // Read the raw bytes whatever the content type, so senders that omit or mislabel it still
  // get through; parseWebhookBody (packages/intake) decides how to read them. body-parser inflates, and its
  // limit counts inflated bytes.
  const rawBody = express.raw({ type: () => true, limit: deps.bodyLimitBytes });
  const readBody = (req: Request, res: Response) =>
    new Promise<Buffer>((resolve, reject) => {
      rawBody(req, res, (err?: unknown) => (err ? reject(err) : resolve(Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0))));
    });
  app.post('/api/webhook/:token', async (req, res) => {
    const outcome: IntakeOutcome = {};
    res.locals.intake = outcome;
    const intake = { store: deps.store, logger: requestLogger(res, deps.logger), renderer: THREADED_RENDERER };
    const result = await receiveWebhook(intake, {
      token: String(req.params.token),
      headers: singleValued(req.headers),
      receivedAt: new Date(),
      readBody: () => readBody(req, res),
      bodyBytes: () => bodyBytes(req),
      admitted: (target) => (outcome.template = target.templateId ?? 'generic'),
      answered: (listener) =>
        res.once('finish', () => listener({ status: res.statusCode, error: typeof res.locals.errorText === 'string' ? res.locals.errorText : String(res.statusCode) })),
    });
    outcome.template = result.templateId ?? 'generic';
    outcome.repairQueued = result.repairQueued;
    outcome.duplicate = result.duplicate;
    res.status(200).json({ ...result.reply, node_id: result.node_id, edge_id: result.edge_id, ...(result.duplicate ? { duplicate: true } : {}) });
  });
  // A browser or a curious admin opening the URL learns what it is for, without a lookup.
  app.all('/api/webhook/:token', () => {
    throw new AppError('method_not_allowed', { detail: 'bruk POST' });
  });
}

export function intakeOutcome(res: Response): IntakeOutcome | undefined {
  return res.locals.intake as IntakeOutcome | undefined;
}

/** The body's size as sent: Content-Length when given, else what was read (chunked). */
function bodyBytes(req: Request): number {
  const declared = Number(req.headers['content-length']);
  if (Number.isSafeInteger(declared) && declared >= 0) return declared;
  return Buffer.isBuffer(req.body) ? req.body.length : 0;
}

/** Node already lower-cases header names; only repeated headers (arrays) need joining. */
function singleValued(headers: Record<string, string | string[] | undefined>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}
