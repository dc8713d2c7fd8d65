import { AppError, RawJson, type ErrorCode } from '@inntak/core';
import { parseWebhookBody, renderDelivery, type BodyTask, type Delivery } from '@inntak/intake';

/**
 * The worker-thread half of a large delivery (webhook-intake-body.ts): parse, clean and render
 * off the event loop, and hand back only text — the payload as JSON text, which is stored
 * without ever being parsed or serialized on the main thread.
 */
export type BodyTaskResult =
  | { delivery: Omit<Delivery, 'payload'> & { payloadJson: string } }
  | { error: { code: ErrorCode; detail?: string } };

export default function prepareLargeDelivery(task: BodyTask): BodyTaskResult {
  try {
    const body = parseWebhookBody(task.body, task.contentType);
    const { payload, ...delivery } = renderDelivery(task.target, { token: task.token, body, headers: task.headers }, { asText: true });
    return { delivery: { ...delivery, payloadJson: (payload as RawJson).text } };
  } catch (err) {
    // An AppError does not survive the thread boundary as one: send its code.
    if (err instanceof AppError) return { error: { code: err.code, detail: err.detail } };
    throw err;
  }
}
