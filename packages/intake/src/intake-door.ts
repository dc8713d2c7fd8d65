import { AppError, uuidv7, type Logger } from '@inntak/core';
import type { Headers } from '@inntak/templates';
import { loggableDeliveryId, senderDeliveryId, senderEvent } from './delivery-facts.js';
import { parseWebhookBody } from './parse-body.js';
import type { FailedDelivery, IntakeStore, WebhookTarget } from './ports.js';
import { deliveryLogEntry, findWebhook, renderDelivery, storeDelivery, type Delivery, type IntakeResponse } from './receive-webhook.js';
import { keptBody, keptHeaders, signatureRefusalReason } from './request-capture.js';
import { signaturePlausible, verifySignature } from './signatures.js';

/**
 * The intake's one door: a delivery is admitted before its body is read, then accepted (stored)
 * or refused (logged). `receiveWebhook` is exactly what POST /api/webhook/{token} runs; every
 * other caller (tests, a future spool) goes through the same three steps.
 */

/** One delivery's body to parse, clean and render, as handed to a `DeliveryRenderer`. */
export interface BodyTask {
  body: Uint8Array;
  contentType: string | undefined;
  target: WebhookTarget;
  token: string;
  headers: Headers;
}

/**
 * How bodies are parsed and rendered. Inline by default; the API hands large bodies to worker
 * threads and stores them one at a time, which is a process's concern, not the use case's.
 */
export interface DeliveryRenderer {
  render(task: BodyTask): Promise<Delivery>;
  /** Runs one delivery's render-and-store; `bytes` is the body's size as read. */
  run<T>(bytes: number, work: () => Promise<T>): Promise<T>;
}

export const INLINE_RENDERER: DeliveryRenderer = {
  render: async (task) => renderDelivery(task.target, { token: task.token, body: parseWebhookBody(task.body, task.contentType), headers: task.headers }),
  run: (_bytes, work) => work(),
};

export interface IntakeDeps {
  store: IntakeStore;
  logger: Logger;
  renderer?: DeliveryRenderer;
}

/** A delivery whose webhook was found and whose headers could still carry a valid signature. */
export interface Admission {
  target: WebhookTarget;
  token: string;
  headers: Headers;
  receivedAt: Date;
}

/** What a delivery brings before its body is read. */
export interface DeliveryRequest {
  token: string;
  /** Header names lower-cased, repeated headers joined. */
  headers: Headers;
  receivedAt: Date;
}

/**
 * Before the body: the webhook for the token (404 otherwise), then headers that cannot make a
 * valid signature (401) or a delivery id over 200 characters (400; it would switch duplicates
 * off) — so a stranger's body costs nothing. `found` hears of the webhook before the header
 * checks, so a delivery refused by them is still logged against it.
 */
export async function admitDelivery(store: IntakeStore, request: DeliveryRequest, found?: (admission: Admission) => void): Promise<Admission> {
  const target = await findWebhook(store, request.token);
  const admission: Admission = { target, token: request.token, headers: request.headers, receivedAt: request.receivedAt };
  found?.(admission);
  const { headers } = request;
  if (target.secret && !signaturePlausible(target.secret, headers)) throw new AppError('invalid_signature');
  senderDeliveryId(headers, undefined, target.secret?.scheme ?? null);
  return admission;
}

/**
 * After the body: the signature over the bytes as read (a credential: checked before any
 * parsing), then render and store — node, edge, access rows and the log row in one transaction.
 */
export async function acceptDelivery(deps: IntakeDeps, admission: Admission, body: Buffer, bytes: number): Promise<IntakeResponse> {
  const { target, headers, token, receivedAt } = admission;
  if (target.secret && !verifySignature(target.secret, headers, body)) throw new AppError('invalid_signature');
  const renderer = deps.renderer ?? INLINE_RENDERER;
  return renderer.run(body.length, async () => {
    const delivery = await renderer.render({ body, contentType: headers['content-type'], target, token, headers });
    const log = deliveryLogEntry(target, headers, delivery, { receivedAt, bytes });
    log.headers = keptHeaders(headers, token);
    return storeDelivery(deps, target, delivery, log);
  });
}

/**
 * A delivery answered with anything but 200, logged once the answer has gone, so logging never
 * delays or changes it. A failed log write is only logged: the answer stands.
 */
export async function refuseDelivery(
  deps: IntakeDeps,
  admission: Admission,
  refusal: { status: number; error: string; bytes: number; body?: Buffer; reason?: string },
): Promise<void> {
  const { target, headers, receivedAt } = admission;
  // The exact reason (a missing signature, a wrong one) is ours, never the sender's words, so it
  // may make a counted row of its own; the answer's own text stays the spec's.
  const error = refusal.reason ? `${refusal.error}: ${refusal.reason}` : refusal.error;
  const failure: FailedDelivery = {
    id: uuidv7(receivedAt.getTime()),
    webhookId: target.webhookId,
    receivedAt,
    status: refusal.status,
    error,
    ...(refusal.reason ? { reason: error } : {}),
    headers: keptHeaders(headers, admission.token),
    body: refusal.body === undefined ? null : keptBody(refusal.body, admission.token),
    deliveryId: loggableDeliveryId(headers, target.secret?.scheme ?? null),
    event: senderEvent(headers),
    bytes: refusal.bytes,
    durationMs: Date.now() - receivedAt.getTime(),
    ...(target.previousToken ? { previousToken: target.previousToken.hash } : {}),
  };
  try {
    await deps.store.recordFailedDelivery(failure);
  } catch (error) {
    deps.logger.error('delivery log write failed', { webhook_id: target.webhookId, status: failure.status, error: String(error) });
  }
}

/** A delivery as it arrives, with the transport's part: reading the body, and its answer. */
export interface IncomingDelivery extends DeliveryRequest {
  /** Reads the body; called only once the delivery is admitted. */
  readBody(): Promise<Buffer>;
  /** The body's size as sent (the log's `bytes`), asked when the delivery is logged. */
  bodyBytes(): number;
  /** Called once the webhook is found (the metrics label deliveries by its template). */
  admitted?(target: WebhookTarget): void;
  /** Calls `listener` once the answer has gone, with its status and error text. */
  answered(listener: (answer: { status: number; error: string }) => void): void;
}

/**
 * Steps 1–7 of the spec's processing order for one delivery: admit, read the body, accept; any
 * answer but 200 after the webhook was found is refused into the delivery log.
 */
export async function receiveWebhook(deps: IntakeDeps, incoming: IncomingDelivery): Promise<IntakeResponse> {
  // Kept for the refusal's log row (docs/deliveries.md#inspector): the body once read, and why
  // a signature failed (worked out only then, so an accepted request pays nothing for it).
  let body: Buffer | undefined;
  let reason: string | undefined;
  let secret: WebhookTarget['secret'] = null;
  try {
    const admission = await admitDelivery(deps.store, incoming, (found) => {
      incoming.admitted?.(found.target);
      secret = found.target.secret;
      // A 200 is logged in the write's own transaction; anything else once answered.
      incoming.answered((answer) => {
        if (answer.status !== 200) void refuseDelivery(deps, found, { ...answer, bytes: incoming.bodyBytes(), body, reason });
      });
    });
    body = await incoming.readBody();
    return await acceptDelivery(deps, admission, body, incoming.bodyBytes());
  } catch (error) {
    if (secret && error instanceof AppError && error.code === 'invalid_signature') reason = signatureRefusalReason(secret, incoming.headers, body);
    throw error;
  }
}

/**
 * A delivery whose body is already in hand, with no transport to answer on (so nothing is
 * refused into the log): how tests and other in-process callers go through the same door.
 */
export function deliveryInHand(request: { token: string; headers?: Headers; body: Buffer | string; receivedAt?: Date }): IncomingDelivery {
  const body = Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body);
  return {
    token: request.token,
    headers: request.headers ?? {},
    receivedAt: request.receivedAt ?? new Date(),
    readBody: async () => body,
    bodyBytes: () => body.length,
    answered: () => {},
  };
}
