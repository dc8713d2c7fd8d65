import { randomUUID } from 'node:crypto';
import { AppError } from '@inntak/core';
import type { Actor } from '@inntak/access';
import type { AdministeredWebhook, PreviousToken, WebhookAdminStore } from './ports.js';
import { tokenHash } from './spool.js';
import { requireWebhookAdmin } from './webhook-admin.js';

/**
 * Safe rotation (issue 39, point 3; docs/deliveries.md#rotation): a new token, with the old one
 * still accepted for a grace period so a sender can be given the new URL without losing
 * deliveries. Who may: the webhook's administrators, as for every webhook setting (the write
 * policy's webhook row, docs/access.md).
 */

/** The grace when none is chosen: a day, time enough to update a sender's settings. */
export const DEFAULT_GRACE_HOURS = 24;
/** The longest grace: a leaked token must not stay good for long after it was rotated away. */
export const MAX_GRACE_HOURS = 168;
/** Previous tokens shown on a webhook's page, latest first. */
export const PREVIOUS_TOKENS_SHOWN = 10;

/** The grace asked for, in hours (0: none; fractions allowed), or a clear error naming the field. */
export function graceHours(raw: unknown): number {
  if (raw === undefined || raw === null || raw === '') return DEFAULT_GRACE_HOURS;
  const hours = typeof raw === 'string' ? Number(raw) : raw;
  if (typeof hours !== 'number' || !Number.isFinite(hours) || hours < 0 || hours > MAX_GRACE_HOURS) {
    throw new AppError('invalid_input', { detail: `grace_hours: et tall fra 0 til ${MAX_GRACE_HOURS}` });
  }
  return hours;
}

/**
 * rotate_webhook_token: a fresh token; the old one stays accepted for `grace_hours` (default 24,
 * 0: it answers 404 at once), kept by its hash only. Every hit on it is counted and marked in
 * the delivery log. One transaction: the new token and the old one's grace together.
 */
export function rotateWebhookToken(store: WebhookAdminStore, actor: Actor, input: { webhook_id: string; grace_hours?: number }): Promise<AdministeredWebhook> {
  const hours = graceHours(input.grace_hours);
  return store.transaction(async (tx) => {
    await requireWebhookAdmin(tx, actor, input.webhook_id);
    const [before] = await tx.administeredWebhooks(actor, { id: input.webhook_id });
    await tx.setWebhookToken(input.webhook_id, randomUUID());
    if (hours > 0) await tx.keepPreviousToken(input.webhook_id, tokenHash(before!.token), Math.round(hours * 3600));
    return (await tx.administeredWebhooks(actor, { id: input.webhook_id }))[0]!;
  });
}

/** end_webhook_token_grace: every previous token of the webhook stops being accepted now. */
export function endTokenGrace(store: WebhookAdminStore, actor: Actor, input: { webhook_id: string }): Promise<{ webhook_id: string; ended: number }> {
  return store.transaction(async (tx) => {
    await requireWebhookAdmin(tx, actor, input.webhook_id);
    return { webhook_id: input.webhook_id, ended: await tx.endPreviousTokens(input.webhook_id) };
  });
}

/** The webhook's previous tokens (their grace and hits, never the tokens), latest first. */
export function listPreviousTokens(store: WebhookAdminStore, actor: Actor, webhookId: string): Promise<PreviousToken[]> {
  return store.transaction(async (tx) => {
    await requireWebhookAdmin(tx, actor, webhookId);
    return tx.previousTokens(webhookId, PREVIOUS_TOKENS_SHOWN);
  });
}
