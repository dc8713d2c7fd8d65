import { AppError } from '@inntak/core';
import type { Headers } from '@inntak/templates';
import { giteaFamilySignatureHeader, type SignatureScheme } from './signatures.js';

/**
 * What the delivery log records of a request besides its outcome: the sender's id of the
 * delivery (for duplicates) and its event name. Headers arrive lower-cased (Node does that).
 */

/**
 * Without a signing scheme: headers that carry a sender's own id of a delivery, in the order
 * they are tried, then Slack's `event_id` in the body. Nothing is signed then, so the order only
 * decides which of a sender's own headers counts.
 */
export const DELIVERY_ID_HEADERS = ['x-github-delivery', 'x-gitea-delivery', 'x-forgejo-delivery', 'x-gogs-delivery', 'x-gitlab-event-uuid', 'webhook-id'] as const;

// With a signing scheme the id comes from one place only (issue 22, finding 11): what the
// scheme signs (Standard Webhooks signs `webhook-id`; Slack signs the body, which holds
// `event_id`), else that sender's own header (GitHub `X-GitHub-Delivery`, GitLab
// `X-Gitlab-Event-UUID`; the Gitea family the delivery header named like the signature header
// that was checked: `X-Forgejo-Signature` → `X-Forgejo-Delivery`). Any other id header is
// ignored, so adding `X-GitHub-Delivery` to a captured signed request does not make it new.

/** Headers that name the event, in the order they are tried (Bitbucket: X-Event-Key). */
export const EVENT_HEADERS = ['x-github-event', 'x-gitea-event', 'x-forgejo-event', 'x-gogs-event', 'x-gitlab-event', 'x-event-key'] as const;

/**
 * The longest delivery id taken (senders' ids are UUIDs or short tokens). A longer one answers
 * 400: it is never silently dropped, which would switch the duplicate check off.
 */
export const MAX_DELIVERY_ID_LENGTH = 200;
const MAX_EVENT_LENGTH = 200;

/** Where a delivery id came from (a header name, or `event_id` for Slack's body) and its value. */
interface FoundId {
  source: string;
  value: string;
}

/**
 * The sender's delivery id (docs/deliveries.md#duplicates), null when the request has none.
 * An id over MAX_DELIVERY_ID_LENGTH characters throws 400 naming where it came from.
 * `payload` undefined: only headers are looked at (before the body is read).
 */
export function senderDeliveryId(headers: Headers, payload: unknown, scheme: SignatureScheme | null = null): string | null {
  const found = findDeliveryId(headers, payload, scheme);
  if (found === null) return null;
  if (found.value.length > MAX_DELIVERY_ID_LENGTH) {
    throw new AppError('invalid_input', { detail: `${found.source}: leverings-id-en kan være høyst ${MAX_DELIVERY_ID_LENGTH} tegn` });
  }
  return found.value;
}

/** The delivery id for a refused request's log row: never throws; an overlong one is left out. */
export function loggableDeliveryId(headers: Headers, scheme: SignatureScheme | null): string | null {
  const found = findDeliveryId(headers, undefined, scheme);
  return found === null || found.value.length > MAX_DELIVERY_ID_LENGTH ? null : found.value;
}

function findDeliveryId(headers: Headers, payload: unknown, scheme: SignatureScheme | null): FoundId | null {
  switch (scheme) {
    case null: {
      for (const name of DELIVERY_ID_HEADERS) {
        if (headers[name] !== undefined) return fromHeader(headers, name);
      }
      return slackEventId(payload);
    }
    case 'github':
      return fromHeader(headers, 'x-github-delivery');
    case 'gitlab':
      return fromHeader(headers, 'x-gitlab-event-uuid');
    case 'gitea': {
      const signature = giteaFamilySignatureHeader(headers);
      return signature === null ? null : fromHeader(headers, signature.replace(/-signature$/, '-delivery'));
    }
    case 'standard-webhooks':
      return fromHeader(headers, 'webhook-id');
    case 'slack':
      return slackEventId(payload);
  }
}

function fromHeader(headers: Headers, name: string): FoundId | null {
  const value = headers[name]?.trim();
  return value ? { source: name, value } : null;
}

/** Slack's Events API repeats a delivery it thinks failed, with the same `event_id`. */
function slackEventId(payload: unknown): FoundId | null {
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return null;
  const eventId = (payload as Record<string, unknown>).event_id;
  if (typeof eventId !== 'string' || eventId.trim() === '') return null;
  return { source: 'event_id', value: eventId.trim() };
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
