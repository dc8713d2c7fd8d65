import { storable } from '@inntak/core';
import type { Headers } from '@inntak/templates';
import { REDACTED_TOKEN } from './receive-webhook.js';
import { giteaFamilySignatureHeader, SLACK_MAX_AGE_SECONDS, type WebhookSecret } from './signatures.js';

/**
 * What the delivery inspector keeps of a request (docs/deliveries.md#inspector): its headers
 * with every secret and signature masked, and (of a refused one) its body up to a cap. The
 * token is in the URL, which is never kept; a body that echoes it has it replaced.
 */

/** What a masked header's value is replaced by. */
export const MASKED = '••••••';

/** Header names always masked, besides any name holding secret, token, signature, hmac, key, password, auth or cookie. */
const MASKED_NAMES = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-hub-signature', 'x-hub-signature-256', 'x-slack-signature', 'webhook-signature', 'x-gitlab-token']);
// hmac: signature headers not named so (X-Shopify-Hmac-Sha256, X-Square-HmacSha256-Signature).
const MASKED_PATTERN = /secret|token|signature|hmac|passw|api[-_]?key|auth|cookie|credential/i;

/** At most this many headers, each value this long, are kept (a request may carry hundreds). */
export const HEADER_CAPS = { count: 64, valueChars: 1_000 } as const;

/** The size cap of a kept body: beyond it the body is cut and marked truncated. */
export const BODY_CAP_BYTES = 64 * 1024;

/** Whether a header's value is masked when kept. */
export function maskedHeader(name: string): boolean {
  return MASKED_NAMES.has(name) || MASKED_PATTERN.test(name);
}

/**
 * The headers as kept: names lower-cased (Node does that), masked values replaced, values cut at
 * HEADER_CAPS.valueChars, at most HEADER_CAPS.count of them, and the webhook's `token` (the one
 * the request came on) replaced in any value, as in a kept body: a Referer or a proxy's
 * X-Original-URL carries the URL, and the URL is never kept. One pass, no copy of a value that
 * fits and holds no token: this runs on every accepted request (issue 40).
 */
export function keptHeaders(headers: Headers, token?: string): Record<string, string> {
  const pattern = tokenPattern(token);
  const kept: Record<string, string> = {};
  let count = 0;
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    if (++count > HEADER_CAPS.count) break;
    if (maskedHeader(name)) {
      kept[name] = MASKED;
      continue;
    }
    // The token is replaced before the cut, so a cut cannot leave a part of it.
    const clean = pattern && value.length >= TOKEN_CHARS && pattern.test(value) ? value.replace(pattern, REDACTED_TOKEN) : value;
    if (pattern) pattern.lastIndex = 0;
    kept[name] = clean.length > HEADER_CAPS.valueChars ? storable(clean.slice(0, HEADER_CAPS.valueChars)) : storable(clean);
  }
  return kept;
}

/** A token's length: a UUID (findWebhook takes no other). */
const TOKEN_CHARS = 36;

/** The token as a pattern in any case; none for a token that is not a UUID's hex digits and dashes. */
function tokenPattern(token: string | undefined): RegExp | undefined {
  const literal = token?.replace(/[^0-9a-f-]/gi, '');
  return literal && literal.length === TOKEN_CHARS ? new RegExp(literal, 'gi') : undefined;
}

/** A refused request's body as kept: text up to BODY_CAP_BYTES, the webhook's token replaced. */
export function keptBody(body: Buffer, token: string): { text: string; truncated: boolean } {
  const truncated = body.length > BODY_CAP_BYTES;
  // A cut through a multi-byte character decodes to U+FFFD, which is storable.
  let text = storable((truncated ? body.subarray(0, BODY_CAP_BYTES) : body).toString('utf8'));
  if (token) text = text.replace(new RegExp(token.replace(/[^0-9a-f-]/gi, ''), 'gi'), REDACTED_TOKEN);
  return { text, truncated };
}

/**
 * Why a request failed the signature check, in words for the log (the answer stays `401
 * Ugyldig signatur` for every case: the spec's text). `body` undefined: refused before the body
 * was read. Computed only for a refusal, so an accepted request pays nothing.
 */
export function signatureRefusalReason(secret: WebhookSecret, headers: Headers, body: Buffer | undefined, nowMs: number = Date.now()): string {
  const missing = (name: string) => `signaturen mangler (${name})`;
  switch (secret.scheme) {
    case 'github':
      if (headers['x-hub-signature-256'] === undefined) return missing('X-Hub-Signature-256');
      break;
    case 'gitea':
      if (giteaFamilySignatureHeader(headers) === null) return missing('X-Gitea-Signature');
      break;
    case 'gitlab':
      return headers['x-gitlab-token'] === undefined ? missing('X-Gitlab-Token') : 'feil token i X-Gitlab-Token';
    case 'slack': {
      if (headers['x-slack-signature'] === undefined) return missing('X-Slack-Signature');
      const timestamp = headers['x-slack-request-timestamp'];
      if (timestamp === undefined) return 'tidsstempelet mangler (X-Slack-Request-Timestamp)';
      if (!/^\d{1,12}$/.test(timestamp) || Math.abs(nowMs / 1000 - Number(timestamp)) > SLACK_MAX_AGE_SECONDS) return 'tidsstempelet er ugyldig eller for gammelt';
      break;
    }
    case 'standard-webhooks':
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
        if (headers[name] === undefined) return name === 'webhook-signature' ? missing(name) : `${name} mangler`;
      }
      break;
  }
  return body === undefined ? 'signaturen kunne ikke sjekkes' : 'signaturen stemmer ikke med hemmeligheten';
}
