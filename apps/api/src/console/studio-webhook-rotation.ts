import type { Router } from 'express';
import { AppError, isUuid } from '@inntak/core';
import { DEFAULT_GRACE_HOURS, endTokenGrace, findAdministeredWebhook, intakeUrl, listPreviousTokens, MAX_GRACE_HOURS, rotateWebhookToken, type PreviousToken, type WebhookAdminStore } from '@inntak/intake';
import { html, type Html } from '@inntak/publishing';
import { actionButton, csrfField, layout, sendPage, timeTag, type StudioView } from './studio-html.js';
import { studioCaller, viewOf } from './studio-session.js';

/**
 * Safe rotation in the console (issue 39, point 3; docs/studio.md): "Roter token" opens a page
 * that asks for confirmation and the grace period, the webhook's page shows its previous tokens
 * (grace end, hits, last hit) and ends their grace on demand. The use cases are the API's
 * (rotate_webhook_token, end_webhook_token_grace): no rule of the console's own.
 */
export function installStudioWebhookRotation(router: Router, deps: { webhookAdmin: WebhookAdminStore; baseUrl: string }): void {
  router.get('/webhooks/:id/nytt-token', async (req, res) => {
    const caller = studioCaller(res);
    const id = webhookId(req.params.id);
    // Its administrators only (404/403 as the use cases answer).
    await listPreviousTokens(deps.webhookAdmin, caller, id);
    const webhook = (await findAdministeredWebhook(deps.webhookAdmin, caller, id))!;
    sendPage(res, 200, confirmPage(viewOf(res), id, webhook.title));
  });

  router.post('/webhooks/:id/nytt-token', async (req, res) => {
    const id = webhookId(req.params.id);
    const raw = (req.body as Record<string, unknown>).grace_hours;
    const webhook = await rotateWebhookToken(deps.webhookAdmin, studioCaller(res), { webhook_id: id, grace_hours: graceField(raw) });
    const [latest] = await listPreviousTokens(deps.webhookAdmin, studioCaller(res), id);
    const kept = latest?.active ? latest : undefined;
    const url = intakeUrl(deps.baseUrl, webhook.token);
    const body = html`<p class="notice" role="status">Nytt token. ${
      kept
        ? html`Den gamle adressen tas imot til ${timeTag(kept.grace_until)}; hver forespørsel til den telles og vises på webhookens side.`
        : 'Den gamle adressen svarer 404 fra nå av.'
    } Gi avsenderen den nye:</p>
<p><code id="ny-url" class="secret">${url}</code> <button type="button" data-copy="ny-url" aria-label="Kopier adressen">Kopier</button></p>
<p><a href="/studio/webhooks/${id}">Tilbake til webhooken</a></p>`;
    sendPage(res, 200, layout(viewOf(res), 'Token rotert', body));
  });

  router.post('/webhooks/:id/avslutt-overgang', async (req, res) => {
    const id = webhookId(req.params.id);
    await endTokenGrace(deps.webhookAdmin, studioCaller(res), { webhook_id: id });
    res.redirect(303, `/studio/webhooks/${id}?ok=overgang`);
  });
}

/** The notice after the grace was ended (the webhook page's `?ok=overgang`). */
export const GRACE_ENDED_NOTICE = 'Overgangstiden er avsluttet: de gamle adressene svarer 404 fra nå av.';

/** The webhook page's part: the rotate button and, when there are any, the previous tokens. */
export function rotationSection(view: StudioView, webhookId: string, previous: readonly PreviousToken[]): Html {
  const active = previous.some((t) => t.active);
  const rows = previous.map(
    (t) => html`<tr><td>${timeTag(t.rotated_at)}</td><td>${timeTag(t.grace_until)}</td><td>${t.active ? 'tas imot' : t.ended_early ? 'avsluttet tidlig' : 'utløpt'}</td><td>${t.hits}</td><td>${t.last_hit_at ? timeTag(t.last_hit_at) : 'aldri'}</td></tr>`,
  );
  const table = previous.length
    ? html`<div class="scroll" role="region" tabindex="0" aria-label="Tabell (kan rulles sideveis)"><table><caption>Tidligere token (den gamle adressen i overgangstiden)</caption><thead><tr><th scope="col">Rotert</th><th scope="col">Tas imot til</th><th scope="col">Nå</th><th scope="col">Forespørsler</th><th scope="col">Siste</th></tr></thead><tbody>${rows}</tbody></table></div>
${active ? actionButton(view, `/studio/webhooks/${webhookId}/avslutt-overgang`, 'Avslutt overgangstiden nå') : ''}`
    : '';
  return html`<p><a href="/studio/webhooks/${webhookId}/nytt-token">Roter token …</a></p>${table}`;
}

function confirmPage(view: StudioView, id: string, title: string | null): Html {
  return layout(
    view,
    'Roter token',
    html`<p>Webhooken ${title ?? 'uten navn'} får et nytt token og dermed en ny adresse. Avsenderen må få den nye adressen; i overgangstiden tas den gamle imot som før, og hver forespørsel til den telles og vises på webhookens side.</p>
<form method="post" action="/studio/webhooks/${id}/nytt-token">${csrfField(view)}
<label for="grace_hours">Overgangstid i timer (0: den gamle adressen svarer 404 med en gang; høyst ${MAX_GRACE_HOURS})</label>
<input id="grace_hours" name="grace_hours" type="number" min="0" max="${MAX_GRACE_HOURS}" step="any" value="${DEFAULT_GRACE_HOURS}" required>
<p><button type="submit">Roter token</button> <a href="/studio/webhooks/${id}">Avbryt</a></p></form>`,
  );
}

function webhookId(value: unknown): string {
  if (!isUuid(value)) throw new AppError('not_found', { detail: 'id' });
  return value;
}

/** The form's field: a number of hours; the use case says what is allowed. */
function graceField(raw: unknown): number | undefined {
  // Blank (spaces too) is the default grace: Number(' ') is 0, which would mean none.
  if (raw === undefined || (typeof raw === 'string' && raw.trim() === '')) return undefined;
  const hours = typeof raw === 'string' ? Number(raw) : NaN;
  if (!Number.isFinite(hours)) throw new AppError('invalid_input', { detail: `grace_hours: et tall fra 0 til ${MAX_GRACE_HOURS}` });
  return hours;
}
