import type { Router } from 'express';
import { AppError, isUuid } from '@inntak/core';
import { findAdministeredWebhook, inspectRequest, replayDelivery, searchRequests, type DeliveryStatusFilter, type InspectedRequest, type InspectorStore, type RequestSearch, type WebhookAdminStore } from '@inntak/intake';
import { html, Html } from '@inntak/publishing';
import { errorSummary, field, type FormState } from './studio-forms.js';
import { actionButton, layout, sendPage, timeTag } from './studio-html.js';
import { studioCaller, viewOf } from './studio-session.js';

export interface StudioDeliveriesDeps {
  webhookAdmin: WebhookAdminStore;
  deliveries: InspectorStore;
}

const PAGE_SIZE = 50;
const STATUS_CHOICES = [
  { value: '', label: 'Alle' },
  { value: 'failed', label: 'Avvist (alt annet enn 200)' },
  { value: 'duplicate', label: 'Duplikater' },
  { value: '200', label: '200 tatt imot' },
  { value: '400', label: '400 ugyldig' },
  { value: '401', label: '401 ugyldig signatur' },
  { value: '413', label: '413 for stor' },
  { value: '415', label: '415 koding' },
];
const SEARCH_LABELS: Record<string, string> = { leverings_id: 'Leverings-id', hendelse: 'Hendelse', status: 'Status', fra: 'Fra (UTC)', til: 'Til (UTC)' };

function idParam(value: unknown, name: string): string {
  if (!isUuid(value)) throw new AppError('not_found', { detail: name });
  return value;
}

/** A datetime-local value read as UTC (the page says so); a bad one is a field error on the search form. */
function utcTime(raw: string | undefined, name: string, errors: Record<string, string>): Date | undefined {
  if (!raw) return undefined;
  const at = new Date(/[zZ]|[+-]\d\d:\d\d$/.test(raw) ? raw : `${raw}Z`);
  if (Number.isNaN(at.getTime())) {
    errors[name] = `«${SEARCH_LABELS[name]}» må være en tid, som 2026-11-28T10:00.`;
    return undefined;
  }
  return at;
}

/** The search's query parameters, read leniently: a bad one is shown on the form and left out. */
function searchOf(query: Record<string, unknown>): { search: RequestSearch; state: FormState } {
  const values: Record<string, string> = {};
  for (const name of ['leverings_id', 'hendelse', 'status', 'fra', 'til']) if (typeof query[name] === 'string' && query[name] !== '') values[name] = (query[name] as string).slice(0, 200);
  const errors: Record<string, string> = {};
  const rawStatus = values.status;
  const status: DeliveryStatusFilter | undefined = rawStatus === 'failed' || rawStatus === 'duplicate' ? rawStatus : rawStatus && /^[1-5]\d\d$/.test(rawStatus) ? Number(rawStatus) : undefined;
  const from = utcTime(values.fra, 'fra', errors);
  const to = utcTime(values.til, 'til', errors);
  if (from && to && from > to) errors.til = '«Til (UTC)» må være etter «Fra (UTC)».';
  const search: RequestSearch = {
    limit: PAGE_SIZE,
    before: isUuid(query.cursor) ? query.cursor : undefined,
    status,
    deliveryId: values.leverings_id,
    event: values.hendelse,
    from,
    to: errors.til ? undefined : to,
  };
  return { search, state: { values, errors } };
}

function statusText(r: InspectedRequest): string {
  if (r.counted !== undefined) return `${r.status} ×${r.counted} (bare talt)`;
  return `${r.status}${r.duplicate ? ' (duplikat)' : ''}${r.replay_of ? ' (avspilling)' : ''}`;
}

/**
 * The delivery inspector's pages (docs/deliveries.md#inspector): a webhook's requests searched by
 * the sender's delivery id, event, status and time, newest first in keyset pages; one request
 * with its headers (secrets masked) and body; replay. Each the use case REST and the CLI call.
 */
export function installStudioDeliveries(router: Router, deps: StudioDeliveriesDeps): void {
  router.get('/webhooks/:id/foresporsler', async (req, res) => {
    const id = idParam(req.params.id, 'id');
    const caller = studioCaller(res);
    const { search, state } = searchOf(req.query as Record<string, unknown>);
    const found = await searchRequests(deps.deliveries, caller, id, search);
    const webhook = (await findAdministeredWebhook(deps.webhookAdmin, caller, id))!;
    const base = `/studio/webhooks/${id}/foresporsler`;
    const rows = found.requests.map(
      (r) => html`<tr><td>${r.counted === undefined ? html`<a href="${base}/${r.id}">${timeTag(r.received_at)}</a>` : timeTag(r.received_at)}</td>
<td>${statusText(r)}</td><td>${r.error ?? ''}</td><td>${r.delivery_id ? html`<code>${r.delivery_id}</code>` : ''}</td><td>${r.event ?? ''}</td><td>${r.bytes}</td></tr>`,
    );
    const filters = new URLSearchParams(state.values);
    const older = found.next_cursor ? html`<p><a href="${base}?${new URLSearchParams({ ...state.values, cursor: found.next_cursor }).toString()}">Eldre forespørsler</a></p>` : '';
    const view = viewOf(res);
    sendPage(
      res,
      200,
      layout(
        view,
        `Forespørsler til ${webhook.title ?? 'webhooken'}`,
        html`<p><a href="/studio/webhooks/${id}">Tilbake til webhooken</a></p>
<p>Hver forespørsel, tatt imot eller avvist. Avviste beholdes hele i 7 dager (de 20 første i minuttet; resten bare telles), med hoder (hemmeligheter og signaturer skjult) og innhold opptil 64 KiB. Tider i UTC.</p>
${errorSummary(state)}<form method="get" action="${base}" class="search">
${field(state, { name: 'leverings_id', label: 'Leverings-id', type: 'search', maxlength: 200, hint: 'Avsenderens id: X-GitHub-Delivery, X-Gitea-Delivery, webhook-id, …' })}
${field(state, { name: 'hendelse', label: 'Hendelse', type: 'search', maxlength: 200 })}
${field(state, { name: 'status', label: 'Status', type: 'select', options: STATUS_CHOICES })}
${field(state, { name: 'fra', label: 'Fra (UTC)', type: 'datetime-local' })}
${field(state, { name: 'til', label: 'Til (UTC)', type: 'datetime-local' })}
<p><button type="submit">Søk</button>${filters.size ? html` <a href="${base}">Nullstill</a>` : ''}</p></form>
${
  rows.length
    ? html`<div class="scroll" role="region" tabindex="0" aria-label="Forespørsler (kan rulles sideveis)"><table><caption>Nyeste først</caption><thead><tr><th scope="col">Mottatt</th><th scope="col">Status</th><th scope="col">Årsak</th><th scope="col">Leverings-id</th><th scope="col">Hendelse</th><th scope="col">Byte</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : html`<p>Ingen forespørsler${filters.size ? ' som passer søket' : ''}.</p>`
}
${older}`,
      ),
    );
  });

  router.get('/webhooks/:id/foresporsler/:request', async (req, res) => {
    const id = idParam(req.params.id, 'id');
    const caller = studioCaller(res);
    const request = await inspectRequest(deps.deliveries, caller, id, idParam(req.params.request, 'delivery_id'));
    const view = viewOf(res);
    const base = `/studio/webhooks/${id}/foresporsler`;
    const headers = Object.entries(request.headers).sort(([a], [b]) => a.localeCompare(b));
    const replayable = request.body !== null && !request.body.truncated;
    const notice = req.query.ok === 'avspilt' ? html`<p class="notice" role="status">Spilt av på nytt: dette er den nye leveransen.</p>` : '';
    sendPage(
      res,
      200,
      layout(
        view,
        `Forespørsel ${request.status}`,
        html`${notice}<p><a href="${base}">Tilbake til forespørslene</a></p>
<dl class="facts"><dt>Mottatt</dt><dd>${timeTag(request.received_at)}</dd>
<dt>Status</dt><dd>${statusText(request)}</dd>
${request.error ? html`<dt>Årsak</dt><dd>${request.error}</dd>` : ''}
<dt>Leverings-id</dt><dd>${request.delivery_id ? html`<code>${request.delivery_id}</code>` : 'ingen'}</dd>
<dt>Hendelse</dt><dd>${request.event ?? 'ingen'}</dd><dt>Byte</dt><dd>${request.bytes}</dd>
${request.replay_of ? html`<dt>Avspilling av</dt><dd><a href="${base}/${request.replay_of}">den opprinnelige forespørselen</a></dd>` : ''}
${request.node_id ? html`<dt>Node</dt><dd><a href="/studio/webhooks/${id}/noder/${request.node_id}">Innholdet</a></dd>` : ''}</dl>
<section aria-labelledby="hoder"><h2 id="hoder">Hoder</h2>
${headers.length ? html`<div class="scroll" role="region" tabindex="0" aria-label="Hoder (kan rulles sideveis)"><table><caption>Hemmeligheter og signaturer er skjult (••••••)</caption><thead><tr><th scope="col">Navn</th><th scope="col">Verdi</th></tr></thead><tbody>${headers.map(([name, value]) => html`<tr><td><code>${name}</code></td><td><code>${value}</code></td></tr>`)}</tbody></table></div>` : html`<p>Ingen hoder lagret (forespørselen kom før inspektøren).</p>`}</section>
<section aria-labelledby="kropp"><h2 id="kropp">Innhold</h2>
${bodyPart(request.body)}
${replayable ? html`<p>Spill av: innholdet gjengis med webhookens mal slik den er nå og lagres som en ny leveranse (en ny node), merket som avspilling.</p>${actionButton(view, `${base}/${request.id}/spill-av`, 'Spill av på nytt')}` : ''}</section>`,
      ),
    );
  });

  router.post('/webhooks/:id/foresporsler/:request/spill-av', async (req, res) => {
    const id = idParam(req.params.id, 'id');
    const replayed = await replayDelivery(deps.deliveries, studioCaller(res), { webhook_id: id, delivery_id: idParam(req.params.request, 'delivery_id') });
    res.redirect(303, `/studio/webhooks/${id}/foresporsler/${replayed.id}?ok=avspilt`);
  });
}

function bodyPart(body: { text: string; truncated: boolean; from_node: boolean } | null): Html {
  if (body === null) return html`<p>Ikke lagret: forespørselen ble avvist før innholdet ble lest, eller noden er slettet.</p>`;
  const note = body.from_node ? 'Slik noden lagret den (nyttelasten).' : body.truncated ? 'Kortet av etter 64 KiB.' : 'Slik den kom.';
  return html`<p>${note}</p><pre>${body.text || '(tomt)'}</pre>`;
}
