import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { Headers } from '@inntak/templates';

/**
 * Webhook signatures (docs/deliveries.md#signatures): each sender's own scheme, checked over the
 * body's bytes as read, before it is parsed. Every comparison is of two equal-length digests in
 * constant time, so neither the secret nor a valid signature can be learned byte by byte.
 */

export const SIGNATURE_SCHEMES = ['github', 'gitlab', 'gitea', 'slack', 'standard-webhooks'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

export interface WebhookSecret {
  scheme: SignatureScheme;
  secret: string;
}

/** Slack's replay window: a request whose timestamp is further from now is refused. */
export const SLACK_MAX_AGE_SECONDS = 5 * 60;

/** Whether the request carries a valid signature for the webhook's secret. */
export function verifySignature(secret: WebhookSecret, headers: Headers, body: Buffer, nowMs: number = Date.now()): boolean {
  switch (secret.scheme) {
    case 'github':
      // X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>
      return sameHex(prefixed(headers['x-hub-signature-256'], 'sha256='), hmac(secret.secret, body));
    case 'gitea':
      return sameHex(giteaSignature(headers), hmac(secret.secret, body));
    case 'gitlab':
      // GitLab sends the secret itself; compare digests so the lengths are equal.
      return headers['x-gitlab-token'] !== undefined && timingSafeEqual(sha256(headers['x-gitlab-token']), sha256(secret.secret));
    case 'slack': {
      const timestamp = headers['x-slack-request-timestamp'];
      if (timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) return false;
      if (Math.abs(nowMs / 1000 - Number(timestamp)) > SLACK_MAX_AGE_SECONDS) return false;
      const mac = createHmac('sha256', secret.secret).update(`v0:${timestamp}:`).update(body).digest();
      return sameHex(prefixed(headers['x-slack-signature'], 'v0='), mac);
    }
    case 'standard-webhooks':
      return verifyStandardWebhook(secret.secret, headers, body);
  }
}

/**
 * What can be checked before the body is read: that the scheme's headers are there at all,
 * Slack's timestamp is fresh, and GitLab's token (which signs nothing) is right. A request
 * failing this is refused without receiving its body (up to BODY_LIMIT) first.
 */
export function signaturePlausible(secret: WebhookSecret, headers: Headers, nowMs: number = Date.now()): boolean {
  switch (secret.scheme) {
    case 'github':
      return headers['x-hub-signature-256'] !== undefined;
    case 'gitea':
      return giteaSignature(headers) !== undefined;
    case 'gitlab':
      return verifySignature(secret, headers, Buffer.alloc(0), nowMs);
    case 'slack': {
      const timestamp = headers['x-slack-request-timestamp'];
      if (headers['x-slack-signature'] === undefined || timestamp === undefined || !/^\d{1,12}$/.test(timestamp)) return false;
      return Math.abs(nowMs / 1000 - Number(timestamp)) <= SLACK_MAX_AGE_SECONDS;
    }
    case 'standard-webhooks':
      return headers['webhook-id'] !== undefined && headers['webhook-timestamp'] !== undefined && headers['webhook-signature'] !== undefined;
  }
}

/** Whether a secret can be used with the scheme; the reason when not (for a 400 on setting it). */
export function secretProblem(scheme: SignatureScheme, secret: string): string | null {
  if (secret.length === 0) return 'kan ikke være tom';
  if (secret.length > 1024) return 'kan være høyst 1024 tegn';
  if (scheme === 'standard-webhooks') {
    try {
      new Webhook(secret);
    } catch {
      return 'må være en base64-nøkkel, gjerne med prefikset whsec_';
    }
  }
  return null;
}

/**
 * The Gitea family's signature header that is checked: Gitea sends X-Gitea-Signature (and the
 * same in X-Gogs-Signature), Forgejo X-Forgejo-Signature, Gogs X-Gogs-Signature. The first one
 * present is the one checked, so a header added in front of a captured request's makes it fail.
 */
export function giteaFamilySignatureHeader(headers: Headers): 'x-gitea-signature' | 'x-forgejo-signature' | 'x-gogs-signature' | null {
  for (const name of ['x-gitea-signature', 'x-forgejo-signature', 'x-gogs-signature'] as const) {
    if (headers[name] !== undefined) return name;
  }
  return null;
}

function giteaSignature(headers: Headers): string | undefined {
  const name = giteaFamilySignatureHeader(headers);
  return name === null ? undefined : headers[name];
}

function verifyStandardWebhook(secret: string, headers: Headers, body: Buffer): boolean {
  const required = { 'webhook-id': headers['webhook-id'], 'webhook-timestamp': headers['webhook-timestamp'], 'webhook-signature': headers['webhook-signature'] };
  if (!required['webhook-id'] || !required['webhook-timestamp'] || !required['webhook-signature']) return false;
  try {
    // The library compares in constant time and refuses timestamps more than 5 minutes off.
    new Webhook(secret).verify(body, required as Record<string, string>, { jsonParse: false });
    return true;
  } catch (error) {
    if (error instanceof WebhookVerificationError) return false;
    throw error;
  }
}

function hmac(secret: string, body: Buffer): Buffer {
  return createHmac('sha256', secret).update(body).digest();
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function prefixed(value: string | undefined, prefix: string): string | undefined {
  return value?.startsWith(prefix) ? value.slice(prefix.length) : undefined;
}

/** A hex signature against the expected digest: malformed or of another length is simply wrong. */
function sameHex(given: string | undefined, expected: Buffer): boolean {
  if (given === undefined || given.length !== expected.length * 2 || !/^[0-9a-fA-F]+$/.test(given)) return false;
  return timingSafeEqual(Buffer.from(given, 'hex'), expected);
}
