import { AppError, jsonNestsDeeperThan } from '@inntak/core';

export interface ParsedBody {
  payload: unknown;
  /** The JSON text the payload was parsed from, when there was one (not for a plain form). */
  json?: string;
}

const utf8 = new TextDecoder();

/**
 * Any JSON value is a payload; no body is `{}`. A form-encoded body (Travis CI, Slack
 * interactive) carries its JSON in a `payload` field; a form without one (Slack slash commands,
 * outgoing webhooks) becomes an object of its fields.
 */
export function parseWebhookBody(body: Uint8Array | undefined, contentType: string | undefined): ParsedBody {
  if (!body || body.length === 0) return { payload: {} };
  const text = utf8.decode(body);
  if (text.trim() === '') return { payload: {} };
  if (contentType && /^application\/x-www-form-urlencoded\b/i.test(contentType)) {
    const form = new URLSearchParams(text);
    const json = form.get('payload');
    return json === null ? { payload: Object.fromEntries(form) } : { payload: parseJson(json), json };
  }
  return { payload: parseJson(text), json: text };
}

function parseJson(text: string): unknown {
  // Refused before parsing: every later walk over the payload recurses (JSON_MAX_DEPTH).
  if (jsonNestsDeeperThan(text)) throw new AppError('json_too_deep');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new AppError('invalid_json', { detail: err instanceof Error ? err.message : undefined });
  }
}
