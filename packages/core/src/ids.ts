import { v7 } from 'uuid';

/**
 * RFC 9562 version 7 UUID (the `uuid` package): 48-bit Unix milliseconds, then a counter and
 * random bits. Time-ordered ids keep the primary-key index append-mostly and give keyset
 * pagination a creation order for free. Without `now`, ids made in one process are strictly
 * increasing, also within one millisecond (the counter); with `now` (a webhook's receive time),
 * they order by that millisecond.
 */
export function uuidv7(now?: number): string {
  return now === undefined ? v7() : v7({ msecs: now });
}

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}
