import type { Headers } from '@inntak/templates';

/**
 * What the delivery log records of a request besides its outcome: the sender's id of the
 * delivery (for duplicates) and its event name. Headers arrive lower-cased (Node does that).
 */

/** Headers that carry a sender's own id of a delivery, in the order they are tried. */
export const DELIVERY_ID_HEADERS = ['x-github-delivery', 'x-gitea-delivery', 'x-gogs-delivery', 'x-gitlab-event-uuid', 'webhook-id'] as const;

/** Headers that name the event, in the order they are tried (Bitbucket: X-Event-Key). */
export const EVENT_HEADERS = ['x-github-event', 'x-gitea-event', 'x-forgejo-event', 'x-gogs-event', 'x-gitlab-event', 'x-event-key'] as const;

/**
 * Longer ids are not the senders' (theirs are UUIDs or short tokens): such a value is not used
 * for duplicates, so a sender cannot make the index hold kilobytes per request.
 */
export const MAX_DELIVERY_ID_LENGTH = 200;
const MAX_EVENT_LENGTH = 200;

/** The sender's delivery id from its header, or Slack's `event_id` in the body; else null. */
export function senderDeliveryId(headers: Headers, payload: unknown): string | null {
  for (const name of DELIVERY_ID_HEADERS) {
    const value = headers[name];
    if (value !== undefined) return usable(value, MAX_DELIVERY_ID_LENGTH);
  }
  // Slack's Events API repeats a delivery it thinks failed, with the same event_id.
  if (payload !== null && typeof payload === 'object' && !Array.isArray(payload)) {
    const eventId = (payload as Record<string, unknown>).event_id;
    if (typeof eventId === 'string') return usable(eventId, MAX_DELIVERY_ID_LENGTH);
  }
  return null;
}

/** The event as the sender's header names it; null when none does. */
export function senderEvent(headers: Headers): string | null {
  for (const name of EVENT_HEADERS) {
    const value = headers[name];
    if (value !== undefined) return usable(value, MAX_EVENT_LENGTH);
  }
  return null;
}

function usable(value: string, max: number): string | null {
  const trimmed = value.trim();
  return trimmed === '' || trimmed.length > max ? null : trimmed;
}
