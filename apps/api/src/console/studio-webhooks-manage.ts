import type { Response, Router } from 'express';
import { z } from 'zod';
import { AppError, isUuid } from '@inntak/core';
import {
  createSignedWebhook,
  deleteWebhook,
  findAdministeredWebhook,
  intakeUrl,
  knownTemplateId,
  renameWebhook,
  secretProblem,
  SIGNATURE_SCHEMES,
  webhookCollections,
  type DeliveriesStore,
  type WebhookAdminStore,
} from '@inntak/intake';
import { html } from '@inntak/publishing';
import { listTemplates } from '@inntak/templates';
import { Id, storableText } from '../schemas.js';
import { EMPTY_FORM, errorSummary, field, FormRejected, handleForm, parseForm, valuesOf, type FormState } from './studio-forms.js';
import { csrfField, layout, sendPage } from './studio-html.js';
import { studioCaller, viewOf } from './studio-session.js';

export interface StudioWebhookManageDeps {
  webhookAdmin: WebhookAdminStore;
  deliveries: DeliveriesStore;
  baseUrl: string;
}

/** The create form's fields, checked as create_webhook's and set_webhook_secret's routes check them. */
const CreateForm = z.object({
  title: storableText(z.string().min(1).max(500)),
  collection_id: Id,
  template_id: z.string().max(100),
  scheme: z.enum([...SIGNATURE_SCHEMES, 'none']),
  secret: storableText(z.string().max(1024)),
});
const LABELS: Record<string, string> = { title: 'Navn', collection_id: 'Samling', template_id: 'Mal', scheme: 'Signaturordning', secret: 'Hemmelighet' };

const RenameForm = z.object({ title: storableText(z.string().min(1).max(500)) });

function idParam(value: unknown): string {
  if (!isUuid(value)) throw new AppError('not_found', { detail: 'id' });
  return value;
}

/**
 * Creating, renaming and deleting webhooks from the console (issue 39, point 1): each form one
 * call of a use case of packages/intake (createSignedWebhook: create_webhook and, when a scheme
 * is chosen, its secret in one transaction; renameWebhook, deleteWebhook). Registered before /webhooks/:id, so `ny` is a page.
 */
export function installStudioWebhookManage(router: Router, deps: StudioWebhookManageDeps): void {
  const createPage = async (res: Response, state: FormState) => {
    const collections = await webhookCollections(deps.webhookAdmin, studioCaller(res));
    const view = viewOf(res);
    if (collections.length === 0) return layout(view, 'Ny webhook', html`<p>Du administrerer ingen samlinger, så du kan ikke lage en webhook ennå. En som eier en samling kan gi deg admin-tilgang til den.</p>`);
    return layout(
      view,
      'Ny webhook',
      html`${errorSummary(state)}<form method="post" action="/studio/webhooks/ny">${csrfField(view)}
${field(state, { name: 'title', label: 'Navn', required: true, maxlength: 500, hint: 'Hva den tar imot, f.eks. «GitHub: inntak-repoet».' })}
${field(state, { name: 'collection_id', label: 'Samling', type: 'select', required: true, options: [{ value: '', label: 'Velg en samling' }, ...collections.map((c) => ({ value: c.id, label: c.title ?? c.id }))], hint: 'Innholdet den tar imot havner her.' })}
${field(state, { name: 'template_id', label: 'Mal', type: 'select', options: [{ value: '', label: 'Generisk uttrekk' }, ...listTemplates().map((t) => ({ value: t.id, label: `${t.title} (${t.id})` }))] })}
${field(state, { name: 'scheme', label: 'Signaturordning', type: 'select', value: 'none', options: [{ value: 'none', label: 'Ingen (usignerte forespørsler tas imot)' }, ...SIGNATURE_SCHEMES.map((s) => ({ value: s, label: s }))] })}
${field(state, { name: 'secret', label: 'Hemmelighet', type: 'password', maxlength: 1024, hint: 'Bare med en signaturordning. Tom: en tilfeldig lages og vises én gang.' })}
<p><button type="submit">Lag webhooken</button></p></form>`,
    );
  };

  router.get('/webhooks/ny', async (_req, res) => sendPage(res, 200, await createPage(res, EMPTY_FORM)));

  router.post('/webhooks/ny', async (req, res) => {
    const values = valuesOf(req.body);
    await handleForm(res, values, (state) => createPage(res, state), async () => {
      const form = parseForm(CreateForm, { title: values.title ?? '', collection_id: values.collection_id, template_id: values.template_id ?? '', scheme: values.scheme ?? 'none', secret: values.secret ?? '' }, LABELS, { ...values, secret: '' });
      const caller = studioCaller(res);
      const kept = { ...values, secret: '' };
      if (form.template_id && !listTemplates().some((t) => t.id === form.template_id)) throw new FormRejected({ values: kept, errors: { template_id: '«Mal» må være en av malene i listen.' } });
      const templateId = knownTemplateId(form.template_id || null);
      const secret = form.scheme === 'none' ? null : form.secret || generatedSecret(form.scheme);
      // The secret is checked first, to show a bad one on the form; the webhook and its secret are one transaction.
      const problem = secret === null ? null : secretProblem(form.scheme as (typeof SIGNATURE_SCHEMES)[number], secret);
      if (problem) throw new FormRejected({ values: kept, errors: { secret: `«Hemmelighet» ${problem}.` } });
      const signing = secret === null ? null : { scheme: form.scheme as (typeof SIGNATURE_SCHEMES)[number], secret };
      const created = await createSignedWebhook(deps.deliveries, caller, { collectionId: form.collection_id, templateId, title: form.title, signing });
      const url = intakeUrl(deps.baseUrl, created.token);
      sendPage(
        res,
        200,
        layout(
          viewOf(res),
          'Webhooken er laget',
          html`<p class="notice" role="status">«${form.title}» er laget. Gi avsenderen adressen${secret ? ' og hemmeligheten (den vises bare nå)' : ''}:</p>
<p><code id="url" class="secret">${url}</code></p>${secret ? html`<p><code id="hemmelighet" class="secret">${secret}</code></p>` : ''}
<p><a href="/studio/webhooks/${created.id}">Til webhooken</a></p>`,
        ),
      );
    });
  });

  const renamePage = async (res: Response, id: string, state: FormState) => {
    const webhook = await findAdministeredWebhook(deps.webhookAdmin, studioCaller(res), id);
    if (!webhook) throw new AppError('not_found', { detail: 'id' });
    const view = viewOf(res);
    return layout(
      view,
      `Gi nytt navn: ${webhook.title ?? 'webhook uten navn'}`,
      html`${errorSummary(state)}<form method="post" action="/studio/webhooks/${id}/navn">${csrfField(view)}
${field(state, { name: 'title', label: 'Navn', required: true, maxlength: 500, value: webhook.title ?? '' })}
<p><button type="submit">Lagre navnet</button> <a href="/studio/webhooks/${id}">Avbryt</a></p></form>`,
    );
  };

  router.get('/webhooks/:id/navn', async (req, res) => sendPage(res, 200, await renamePage(res, idParam(req.params.id), EMPTY_FORM)));

  router.post('/webhooks/:id/navn', async (req, res) => {
    const id = idParam(req.params.id);
    const values = valuesOf(req.body);
    await handleForm(res, values, (state) => renamePage(res, id, state), async () => {
      const form = parseForm(RenameForm, { title: values.title ?? '' }, LABELS);
      await renameWebhook(deps.webhookAdmin, studioCaller(res), { webhook_id: id, title: form.title });
      res.redirect(303, `/studio/webhooks/${id}?ok=navn`);
    });
  });

  // Deleting asks first: a page that says what goes (the URL, the log) and what stays (content).
  router.get('/webhooks/:id/slett', async (req, res) => {
    const id = idParam(req.params.id);
    const webhook = await findAdministeredWebhook(deps.webhookAdmin, studioCaller(res), id);
    if (!webhook) throw new AppError('not_found', { detail: 'id' });
    const view = viewOf(res);
    sendPage(
      res,
      200,
      layout(
        view,
        `Slette «${webhook.title ?? 'webhook uten navn'}»?`,
        html`<p>Adressen slutter å virke med en gang (avsenderen får 404), og leveranseloggen slettes. Innholdet webhooken har tatt imot, blir liggende i samlingen.</p>
<form method="post" action="/studio/webhooks/${id}/slett">${csrfField(view)}<p><button type="submit" class="danger">Ja, slett webhooken</button> <a href="/studio/webhooks/${id}">Nei, behold den</a></p></form>`,
      ),
    );
  });

  router.post('/webhooks/:id/slett', async (req, res) => {
    await deleteWebhook(deps.webhookAdmin, studioCaller(res), { webhook_id: idParam(req.params.id) });
    res.redirect(303, '/studio/webhooks?ok=slettet');
  });
}

function generatedSecret(scheme: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return scheme === 'standard-webhooks' ? `whsec_${Buffer.from(bytes).toString('base64')}` : Buffer.from(bytes).toString('hex');
}
