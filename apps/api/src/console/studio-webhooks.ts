import { randomBytes } from 'node:crypto';
import type { Response, Router } from 'express';
import { AppError, isUuid } from '@inntak/core';
import type { NodeQueryStore } from '@inntak/graph';
import {
  findAdministeredWebhook,
  intakeUrl,
  knownTemplateId,
  listDeliveries,
  listWebhookHealth,
  rerenderNode,
  listPreviousTokens,
  rerenderWebhook,
  setWebhookSecret,
  setWebhookTemplate,
  SIGNATURE_SCHEMES,
  type AdministeredWebhook,
  type DeliveryStatusFilter,
  type PreviousToken,
  type InspectorStore,
  type WebhookHealth,
  type WebhookAdminStore,
} from '@inntak/intake';
import { html, Html } from '@inntak/publishing';
import { listTemplates, renderPayload, TEMPLATE_HEADERS } from '@inntak/templates';
import { actionButton, csrfField, layout, pageHeaders, sendPage, timeTag, type StudioView } from './studio-html.js';
import { studioCaller, viewOf } from './studio-session.js';
import { GRACE_ENDED_NOTICE, installStudioWebhookRotation, rotationSection } from './studio-webhook-rotation.js';

export interface StudioWebhookDeps {
  webhookAdmin: WebhookAdminStore;
  deliveries: InspectorStore;
  nodeQueries: NodeQueryStore;
  baseUrl: string;
}

const PAGE_SIZE = 50;
const STATUS_CHOICES: Array<[string, string]> = [
  ['', 'Alle'],
  ['failed', 'Feilet (alt annet enn 200)'],
  ['duplicate', 'Duplikater'],
  ['200', '200 tatt imot'],
  ['400', '400 ugyldig'],
  ['401', '401 ugyldig signatur'],
  ['404', '404 ukjent token'],
  ['413', '413 for stor'],
  ['415', '415 koding'],
  ['429', '429 for mange'],
];

function idParam(value: unknown, field: string): string {
  if (!isUuid(value)) throw new AppError('not_found', { detail: field });
  return value;
}

function statusFilter(raw: unknown): DeliveryStatusFilter | undefined {
  if (raw === 'failed' || raw === 'duplicate') return raw;
  if (typeof raw === 'string' && /^[1-5]\d\d$/.test(raw)) return Number(raw);
  return undefined;
}

/** The webhook administrators' pages: list, one webhook with its delivery log, a delivered node. */
export function installStudioWebhooks(router: Router, deps: StudioWebhookDeps): void {
  const urlOf = (w: AdministeredWebhook) => intakeUrl(deps.baseUrl, w.token);
  installStudioWebhookRotation(router, deps);

  router.get('/webhooks', async (req, res) => {
    // The health view (issue 39): collection, template, last request, refusals of the last hour and day.
    const webhooks = await listWebhookHealth(deps.deliveries, studioCaller(res));
    sendPage(res, 200, layout(viewOf(res), 'Webhooks', healthTable(webhooks, noticeOf(req.query.ok))));
  });

  router.get('/webhooks/:id', async (req, res) => {
    const id = idParam(req.params.id, 'id');
    const caller = studioCaller(res);
    const status = statusFilter(req.query.status);
    const cursor = isUuid(req.query.cursor) ? req.query.cursor : undefined;
    // The log's use case answers 404/403 exactly as GET /admin/webhooks/{id}/deliveries does.
    const log = await listDeliveries(deps.deliveries, caller, id, { limit: PAGE_SIZE, before: cursor, status });
    const webhook = (await findAdministeredWebhook(deps.webhookAdmin, caller, id))!;
    const previous = await listPreviousTokens(deps.webhookAdmin, caller, id);
    sendPage(res, 200, webhookPage(viewOf(res), webhook, urlOf(webhook), log, { status, notice: noticeOf(req.query.ok), previous }));
  });

  router.post('/webhooks/:id/mal', async (req, res) => {
    const id = idParam(req.params.id, 'id');
    const raw = (req.body as Record<string, unknown>).template_id;
    const templateId = typeof raw === 'string' && raw !== '' ? raw : null;
    await setWebhookTemplate(deps.webhookAdmin, studioCaller(res), { webhook_id: id, template_id: knownTemplateId(templateId) });
    res.redirect(303, `/studio/webhooks/${id}?ok=mal`);
  });

  router.post('/webhooks/:id/signering', async (req, res) => {
    const id = idParam(req.params.id, 'id');
    const form = req.body as Record<string, unknown>;
    const scheme = (SIGNATURE_SCHEMES as readonly unknown[]).includes(form.scheme) ? (form.scheme as (typeof SIGNATURE_SCHEMES)[number]) : 'none';
    const typed = typeof form.secret === 'string' ? form.secret : '';
    const secret = scheme === 'none' ? null : typed || generatedSecret(scheme);
    await setWebhookSecret(deps.deliveries, studioCaller(res), { webhook_id: id, scheme, secret });
    const body =
      secret === null
        ? html`<p class="notice" role="status">Signering er slått av: usignerte forespørsler tas imot.</p>`
        : html`<p class="notice" role="status">Forespørsler må nå signeres med ${scheme}. Hemmeligheten vises bare denne ene gangen; legg den inn hos avsenderen nå.</p>${copyable('hemmelighet', secret)}`;
    sendPage(res, 200, layout(viewOf(res), 'Signering', html`${body}<p><a href="/studio/webhooks/${id}">Tilbake til webhooken</a></p>`));
  });

  router.get('/webhooks/:id/noder/:node', async (req, res) => {
    const id = idParam(req.params.id, 'id');
    const nodeId = idParam(req.params.node, 'node_id');
    const caller = studioCaller(res);
    // Only the webhook's administrators (404/403 as the delivery log), then the node as the read filter shows it.
    await listDeliveries(deps.deliveries, caller, id, { limit: 1 });
    const found = await deps.nodeQueries.readNode(caller.personId, nodeId, { limit: 1 });
    if (!found || found.node.metadata?.webhook_id !== id) throw new AppError('not_found', { detail: 'node_id' });
    const webhook = (await findAdministeredWebhook(deps.webhookAdmin, caller, id))!;
    const chosen = typeof req.query.mal === 'string' && req.query.mal !== '' ? req.query.mal : webhook.template_id;
    sendPage(res, 200, nodePage(viewOf(res), webhook, found.node, chosen ?? null, noticeOf(req.query.ok)));
  });

  router.post('/webhooks/:id/noder/:node/gjengi', async (req, res) => {
    const id = idParam(req.params.id, 'id');
    const nodeId = idParam(req.params.node, 'node_id');
    await rerenderNode(deps.deliveries, studioCaller(res), nodeId);
    res.redirect(303, `/studio/webhooks/${id}/noder/${nodeId}?ok=gjengitt`);
  });

  router.post('/webhooks/:id/gjengi', async (req, res) => {
    const id = idParam(req.params.id, 'id');
    await rerenderAll(res, deps, id);
  });
}

const NOTICES: Record<string, string> = {
  overgang: GRACE_ENDED_NOTICE,
  mal: 'Malen er endret.',
  gjengitt: 'Noden er gjengitt på nytt med webhookens mal.',
  navn: 'Navnet er endret.',
  slettet: 'Webhooken er slettet. Innholdet den tok imot, ligger fortsatt i samlingen.',
};

function noticeOf(raw: unknown): string | undefined {
  return typeof raw === 'string' ? NOTICES[raw] : undefined;
}

function generatedSecret(scheme: string): string {
  const bytes = randomBytes(32);
  return scheme === 'standard-webhooks' ? `whsec_${bytes.toString('base64')}` : bytes.toString('hex');
}

function copyable(id: string, text: string): Html {
  return html`<p><code id="${id}" class="secret">${text}</code> <button type="button" data-copy="${id}" aria-label="Kopier ${id === 'hemmelighet' ? 'hemmeligheten' : 'adressen'}">Kopier</button></p>`;
}

function webhookPage(
  view: StudioView,
  webhook: AdministeredWebhook,
  url: string,
  log: Awaited<ReturnType<typeof listDeliveries>>,
  options: { status?: DeliveryStatusFilter; notice?: string; previous: readonly PreviousToken[] },
): Html {
  const id = webhook.id;
  const templates = listTemplates();
  const statusText = options.status === undefined ? '' : String(options.status);
  const rows = log.deliveries.map(
    (d) => html`<tr>
<td>${timeTag(d.received_at)}</td><td>${d.status}${d.duplicate ? ' (duplikat)' : ''}${d.previous_token ? ' (forrige token)' : ''}</td><td>${d.error ?? ''}</td><td>${d.event ?? ''}</td>
<td>${d.count ?? 1}</td><td>${d.bytes}</td>
<td>${d.node_id ? html`<a href="/studio/webhooks/${id}/noder/${d.node_id}">Innhold</a>` : ''}</td></tr>`,
  );
  const older = log.next_cursor
    ? html`<p><a href="/studio/webhooks/${id}?${new URLSearchParams({ ...(statusText ? { status: statusText } : {}), cursor: log.next_cursor }).toString()}">Eldre leveranser</a></p>`
    : '';
  return layout(
    view,
    webhook.title ?? 'Webhook uten navn',
    html`${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : ''}
${manageLinks(id)}
<section aria-labelledby="adresse"><h2 id="adresse">Adresse</h2>${copyable('url', url)}
${rotationSection(view, id, options.previous)}</section>
<section aria-labelledby="mal"><h2 id="mal">Mal</h2>
<form method="post" action="/studio/webhooks/${id}/mal" class="row">${csrfField(view)}
<div><label for="template_id">Mal</label><select id="template_id" name="template_id">
<option value=""${webhook.template_id === null ? ' selected' : ''}>Generisk uttrekk</option>
${templates.map((t) => html`<option value="${t.id}"${new Html(webhook.template_id === t.id ? ' selected' : '')}>${t.title} (${t.id})</option>`)}
</select></div><button type="submit">Lagre mal</button></form>
<div>${actionButton(view, `/studio/webhooks/${id}/gjengi`, 'Gjengi alt innhold på nytt med malen')}</div></section>
<section aria-labelledby="signering"><h2 id="signering">Signering</h2>
<p>Nå: ${webhook.signature_scheme ?? 'ingen (usignerte forespørsler tas imot)'}.</p>
<form method="post" action="/studio/webhooks/${id}/signering">${csrfField(view)}
<label for="scheme">Signaturordning</label><select id="scheme" name="scheme">
${SIGNATURE_SCHEMES.map((s) => html`<option value="${s}"${new Html(webhook.signature_scheme === s ? ' selected' : '')}>${s}</option>`)}
<option value="none">Ingen (slå av signering)</option></select>
<label for="secret">Hemmelighet (tom: lag en tilfeldig)</label><input id="secret" name="secret" autocomplete="off" maxlength="1024">
<p><button type="submit">Lagre signering</button></p></form></section>
<section aria-labelledby="leveranser"><h2 id="leveranser">Leveranser</h2>
<form method="get" action="/studio/webhooks/${id}" class="row"><div><label for="status">Status</label><select id="status" name="status">
${STATUS_CHOICES.map(([value, label]) => html`<option value="${value}"${new Html(value === statusText ? ' selected' : '')}>${label}</option>`)}
</select></div><button type="submit">Filtrer</button></form>
${
  rows.length
    ? html`<div class="scroll" role="region" tabindex="0" aria-label="Tabell (kan rulles sideveis)"><table><caption>Nyeste først</caption><thead><tr><th scope="col">Mottatt</th><th scope="col">Status</th><th scope="col">Feil</th><th scope="col">Hendelse</th><th scope="col">Antall</th><th scope="col">Byte</th><th scope="col">Node</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : html`<p>Ingen leveranser${statusText ? ' med denne statusen' : ''}.</p>`
}
${older}</section>`,
  );
}

function nodePage(view: StudioView, webhook: AdministeredWebhook, node: { id: string; title: string | null; metadata: Record<string, unknown> | null }, chosen: string | null, notice?: string): Html {
  const metadata = node.metadata ?? {};
  const payload = metadata.payload ?? {};
  const stored = metadata.event_headers && typeof metadata.event_headers === 'object' ? (metadata.event_headers as Record<string, unknown>) : {};
  const headers = Object.fromEntries(TEMPLATE_HEADERS.filter((h) => typeof stored[h] === 'string').map((h) => [h, stored[h] as string]));
  const preview = renderPayload(chosen, payload, headers);
  const templates = listTemplates();
  const base = `/studio/webhooks/${webhook.id}/noder/${node.id}`;
  return layout(
    view,
    node.title ?? 'Uten tittel',
    html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
<p><a href="/studio/webhooks/${webhook.id}">Tilbake til ${webhook.title ?? 'webhooken'}</a></p>
<section aria-labelledby="forhandsvisning"><h2 id="forhandsvisning">Forhåndsvisning med en mal</h2>
<form method="get" action="${base}" class="row"><div><label for="mal">Mal</label><select id="mal" name="mal">
<option value="">Generisk uttrekk</option>
${templates.map((t) => html`<option value="${t.id}"${new Html(chosen === t.id ? ' selected' : '')}>${t.title} (${t.id})</option>`)}
</select></div><button type="submit">Forhåndsvis</button></form>
<p>Tittel: <strong>${preview.result.title || '(tom)'}</strong></p>
<pre>${preview.result.content || '(tomt innhold)'}</pre>
<details><summary>Ekstra metadata</summary><pre>${JSON.stringify(preview.result.extra_metadata, null, 2)}</pre></details>
${actionButton(view, `${base}/gjengi`, 'Gjengi noden på nytt med webhookens mal')}</section>
<section aria-labelledby="nyttelast"><h2 id="nyttelast">Lagret nyttelast</h2><pre>${JSON.stringify(payload, null, 2)}</pre></section>`,
  );
}

/**
 * Re-render every node the webhook delivered through rerenderWebhook (the use case and its
 * checks), streaming progress as the page is written: readable without a script, and the
 * browser shows each line as it comes. The access check comes before the page starts, so a
 * refusal is still an error page.
 */
async function rerenderAll(res: Response, deps: StudioWebhookDeps, webhookId: string): Promise<void> {
  const caller = studioCaller(res);
  let tail = '';
  const result = await rerenderWebhook(deps.deliveries, caller, {
    webhookId,
    // Pages of 25 nodes: a progress line for each.
    batch: 25,
    started: (total) => {
      const [head, rest] = layout(viewOf(res), 'Gjengir på nytt', html`<p>${total} noder å gjengi.</p><ol aria-live="polite">${new Html('<!--progress-->')}</ol>`)
        .toString()
        .split('<!--progress-->') as [string, string];
      tail = rest;
      pageHeaders(res, 200);
      res.write(head);
    },
    progress: (done, total) => {
      res.write(html`<li><progress max="${total}" value="${done}">${done} av ${total}</progress> ${done} av ${total}</li>`.toString());
    },
  });
  res.write(html`</ol><p class="notice" role="status">Ferdig: ${result.rerendered} gjengitt.</p><p><a href="/studio/webhooks/${webhookId}">Tilbake til webhooken</a></p>`.toString());
  res.end(tail.replace('</ol>', ''));
}

/** The webhook page's way to the inspector, renaming and deleting (studio-deliveries.ts, studio-webhooks-manage.ts). */
function manageLinks(id: string): Html {
  return html`<nav aria-label="Webhooken" class="row"><a href="/studio/webhooks/${id}/foresporsler">Forespørsler: hoder, innhold, søk, avspilling</a> <a href="/studio/webhooks/${id}/navn">Gi nytt navn</a> <a href="/studio/webhooks/${id}/slett">Slett webhooken</a></nav>`;
}

/** The list as a health view: bounded (HEALTH_LIMIT) and only what the person administers. */
function healthTable(webhooks: WebhookHealth[], notice?: string): Html {
  const rows = webhooks.map((w) => {
    const failing = w.failures_hour > 0 ? ' class="failing"' : '';
    return html`<tr${new Html(failing)}><td><a href="/studio/webhooks/${w.id}">${w.title ?? 'Uten navn'}</a></td><td>${w.collection_title ?? w.collection_id}</td><td>${w.template_id ?? 'generisk'}</td>
<td>${w.last_delivery ? html`${timeTag(w.last_delivery.received_at)} (${w.last_delivery.status})` : 'ingen ennå'}</td><td>${w.failures_hour}</td><td>${w.failures_day}</td></tr>`;
  });
  return html`${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}<p><a href="/studio/webhooks/ny">Ny webhook</a></p>
${
  webhooks.length
    ? html`<div class="scroll" role="region" tabindex="0" aria-label="Webhooks (kan rulles sideveis)"><table><caption>Webhooks du administrerer, med helse</caption><thead><tr><th scope="col">Navn</th><th scope="col">Samling</th><th scope="col">Mal</th><th scope="col">Siste forespørsel</th><th scope="col">Avvist siste time</th><th scope="col">Avvist siste døgn</th></tr></thead><tbody>${rows}</tbody></table></div>`
    : html`<p>Du administrerer ingen webhooks.</p>`
}`;
}
