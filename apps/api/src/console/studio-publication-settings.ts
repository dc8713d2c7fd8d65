import type { Response, Router } from 'express';
import { AppError, isUuid } from '@inntak/core';
import { createPublication, html, isValidSlug, PAGE_LANGUAGES, updatePublication, type Html, type PublishedPages, type PublishingStore } from '@inntak/publishing';
import type { PublicationEntry, StudioReads } from '@inntak/studio';
import { CreatePublicationBody, UpdatePublicationBody } from '../schemas.js';
import { EMPTY_FORM, errorSummary, field, FormRejected, handleForm, parseForm, valuesOf, type FormState } from './studio-forms.js';
import { csrfField, layout, sendPage } from './studio-html.js';
import { studioCaller, viewOf } from './studio-session.js';

export interface StudioPublicationSettingsDeps {
  publishingStore: PublishingStore;
  /** The public pages' reads: a publication's about and language (public anyway) for its settings form. */
  publishedPages: PublishedPages;
  studio: { reads: StudioReads };
}

const LABELS: Record<string, string> = { title: 'Navn', slug: 'Adresse (slug)', language: 'Språk', about: 'Om publikasjonen' };
const LANGUAGE_NAMES: Record<string, string> = { nb: 'Norsk bokmål', en: 'Engelsk' };
const LANGUAGES = PAGE_LANGUAGES.map((value) => ({ value, label: LANGUAGE_NAMES[value] ?? value }));

/** The publication the caller may see in the console (member or better), else 404. */
export async function publicationFor(reads: StudioReads, res: Response, raw: unknown): Promise<PublicationEntry> {
  const id = isUuid(raw) ? raw : undefined;
  const publication = id && (await reads.publication(studioCaller(res), id));
  if (!publication) throw new AppError('not_found', { detail: 'publikasjonen' });
  return publication;
}

/** Owners and admins of the publication, and system administrators: who sees the buttons (the use cases still decide). */
export function administers(res: Response, publication: PublicationEntry): boolean {
  return studioCaller(res).isAdmin || publication.level === 'admin' || publication.level === 'owner';
}

/**
 * The publications list with a form that makes one (create_publication, the caller its owner),
 * and a publication's settings (update_publication). Slug and custom domains are not changed
 * here: the slug is in every link readers keep, domains are a system administrator's (CLI/API).
 */
export function installStudioPublicationSettings(router: Router, deps: StudioPublicationSettingsDeps): void {
  const { reads } = deps.studio;

  async function listPage(res: Response, form: FormState = EMPTY_FORM): Promise<Html> {
    const view = viewOf(res);
    const publications = await reads.publications(studioCaller(res), 200);
    const list = publications.length
      ? html`<ul>${publications.map((p) => html`<li><a href="/studio/publikasjoner/${p.id}">${p.title}</a> (/pub/${p.slug}; ${p.level ?? 'systemadministrator'})</li>`)}</ul>`
      : html`<p>Du er ikke medlem av noen publikasjon.</p>
<p>Lag en ny publikasjon nedenfor (du blir eier av den), eller be en eier eller administrator av en publikasjon om å legge deg til som medlem. De trenger din person-id: <code>${view.caller?.personId ?? ''}</code>.</p>`;
    return layout(view, 'Publikasjoner', html`${list}
<section aria-labelledby="ny-publikasjon"><h2 id="ny-publikasjon">Ny publikasjon</h2>
${errorSummary(form)}
<form method="post" action="/studio/publikasjoner">${csrfField(view)}
${field(form, { name: 'title', label: LABELS.title!, required: true, maxlength: 300 })}
${field(form, { name: 'slug', label: LABELS.slug!, required: true, maxlength: 63, hint: 'Forsiden får adressen /pub/<slug>. Bare a–z, 0–9 og bindestrek; den kan ikke endres senere.' })}
${field(form, { name: 'language', label: LABELS.language!, type: 'select', value: 'nb', options: LANGUAGES, hint: 'Språket i sidenes faste tekster og datoer.' })}
${field(form, { name: 'about', label: LABELS.about!, type: 'textarea', rows: 3, maxlength: 20_000, hint: 'Vises på siden «Om».' })}
<p><button type="submit">Lag publikasjon</button></p></form></section>`);
  }

  router.get('/publikasjoner', async (_req, res) => {
    sendPage(res, 200, await listPage(res));
  });

  router.post('/publikasjoner', async (req, res) => {
    const values = valuesOf(req.body);
    await handleForm(res, values, (state) => listPage(res, state), async () => {
      const slug = (values.slug ?? '').trim().toLowerCase();
      const body = parseForm(CreatePublicationBody, { title: values.title, slug, language: values.language || undefined, about: values.about || undefined }, LABELS, values);
      // The use case's own check (isValidSlug), told on the field instead of as a page-wide 400.
      if (!isValidSlug(slug)) throw new FormRejected({ values, errors: { slug: `«${LABELS.slug}» kan bare ha a–z, 0–9 og bindestrek, 1–63 tegn.` } });
      const { id } = await createPublication(deps.publishingStore, studioCaller(res), { ...body, ownerId: studioCaller(res).personId });
      res.redirect(303, `/studio/publikasjoner/${id}?ok=laget`);
    });
  });

  async function settingsPage(res: Response, publication: PublicationEntry, form?: FormState): Promise<Html> {
    const view = viewOf(res);
    const current = await deps.publishedPages.publicationBySlug(publication.slug);
    const state = form ?? { values: { title: publication.title, about: current?.about ?? '', language: current?.language ?? 'nb' }, errors: {} };
    return layout(view, `Innstillinger for ${publication.title}`, html`<p><a href="/studio/publikasjoner/${publication.id}">Tilbake til ${publication.title}</a></p>
${errorSummary(state)}
<form method="post" action="/studio/publikasjoner/${publication.id}/innstillinger">${csrfField(view)}
${field(state, { name: 'title', label: LABELS.title!, required: true, maxlength: 300 })}
<p>Adresse: <code>/pub/${publication.slug}</code> (kan ikke endres).</p>
${field(state, { name: 'language', label: LABELS.language!, type: 'select', options: LANGUAGES, hint: 'Språket i sidenes faste tekster og datoer.' })}
${field(state, { name: 'about', label: LABELS.about!, type: 'textarea', rows: 6, maxlength: 20_000, hint: 'Vises på siden «Om».' })}
<p><button type="submit">Lagre innstillinger</button></p></form>`);
  }

  router.get('/publikasjoner/:id/innstillinger', async (req, res) => {
    const publication = await publicationFor(reads, res, req.params.id);
    sendPage(res, 200, await settingsPage(res, publication));
  });

  router.post('/publikasjoner/:id/innstillinger', async (req, res) => {
    const publication = await publicationFor(reads, res, req.params.id);
    const values = valuesOf(req.body);
    await handleForm(res, values, (state) => settingsPage(res, publication, state), async () => {
      const body = parseForm(UpdatePublicationBody, { publication_id: publication.id, title: values.title, about: values.about ?? '', language: values.language || undefined }, LABELS, values);
      await updatePublication(deps.publishingStore, studioCaller(res), body);
      res.redirect(303, `/studio/publikasjoner/${publication.id}?ok=innstillinger`);
    });
  });
}
