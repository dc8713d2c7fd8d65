import type { Request, Response, Router } from 'express';
import { AppError, isUuid } from '@inntak/core';
import { createVariant, html, publishArticle, unpublishArticle, type Html, type PublishingStore } from '@inntak/publishing';
import { abResults, type AbResultsStore, type TestResult } from '@inntak/ab-testing';
import { loneViews, testViewOf, type ArticleEntry, type PublicationEntry, type StudioReads, type VariantHour } from '@inntak/studio';
import { CreateVariantBody } from '../schemas.js';
import { EMPTY_FORM, errorSummary, field, handleForm, parseForm, valuesOf, type FormState } from './studio-forms.js';
import { actionButton, csrfField, layout, sendPage, timeTag, type StudioView } from './studio-html.js';
import { installStudioAbTest, testSection } from './studio-ab-test.js';
import { studioCaller, viewOf } from './studio-session.js';

export interface StudioPublicationDeps {
  publishingStore: PublishingStore;
  /** The A/B results use case's store (issue 24): the figures and explanations of every test. */
  abResults: AbResultsStore;
  studio: { reads: StudioReads };
}

const ARTICLES_PER_PAGE = 10;
/** The chart covers the last two weeks of counted hours. */
const CHART_HOURS = 24 * 14;

const NOTICES: Record<string, string> = {
  vinner: 'Vinneren er valgt; de andre variantene er trukket tilbake. Forsiden viser vinneren.',
  publisert: 'Artikkelen er publisert.',
  avpublisert: 'Artikkelen er tatt av publikasjonen.',
  variant: 'Varianten er lagt til.',
  pause: 'Testen står på pause: forsiden viser artikkelens egen tittel, og ingenting telles.',
  fortsett: 'Testen går videre og telles igjen.',
};

function formId(value: unknown, field: string): string {
  if (typeof value !== 'string' || !isUuid(value.trim())) throw new AppError('invalid_input', { detail: `${field}: forventet UUID` });
  return value.trim();
}

/** Editors: their publications, each article's front-page test, publish/unpublish, variants, overrides. */
export function installStudioPublications(router: Router, deps: StudioPublicationDeps): void {
  const { reads } = deps.studio;
  // The A/B actions (choose a winner with a confirmation, pause, resume): studio-ab-test.ts.
  installStudioAbTest(router, deps);

  async function publicationFor(res: Response, raw: unknown): Promise<PublicationEntry> {
    const id = isUuid(raw) ? raw : undefined;
    const publication = id && (await reads.publication(studioCaller(res), id));
    if (!publication) throw new AppError('not_found', { detail: 'publikasjonen' });
    return publication;
  }

  router.get('/publikasjoner', async (_req, res) => {
    const publications = await reads.publications(studioCaller(res), 200);
    const body = publications.length
      ? html`<ul>${publications.map((p) => html`<li><a href="/studio/publikasjoner/${p.id}">${p.title}</a> (/pub/${p.slug}; ${p.level ?? 'systemadministrator'})</li>`)}</ul>`
      : html`<p>Du er ikke medlem av noen publikasjon.</p>`;
    sendPage(res, 200, layout(viewOf(res), 'Publikasjoner', body));
  });

  /** The publication's page; `form` is a refused variant form to show again on it. */
  async function renderPublication(req: Request, res: Response, publication: PublicationEntry, form?: FormState): Promise<Html> {
    const caller = studioCaller(res);
    const page = Math.min(Math.max(Number.parseInt(String(req.query.side ?? '1'), 10) || 1, 1), 1000);
    const articles = await reads.articles(publication.id, { limit: ARTICLES_PER_PAGE + 1, offset: (page - 1) * ARTICLES_PER_PAGE });
    const shown = articles.slice(0, ARTICLES_PER_PAGE);
    // The figures come from the API's A/B results use case (GET /publications/{id}/ab_results).
    const [results, hours] = await Promise.all([abResults(deps.abResults, caller, publication.id), reads.variantHours(shown.flatMap((a) => a.variants.map((v) => v.id)), CHART_HOURS)]);
    // Who sees the buttons; the use cases still decide (ab_override refuses anyone else with 403).
    const administers = caller.isAdmin || publication.level === 'admin' || publication.level === 'owner';
    const notice = typeof req.query.ok === 'string' && !form ? NOTICES[req.query.ok] : undefined;
    return publicationPage(viewOf(res), publication, shown, results.tests, hours, { administers, page, more: articles.length > ARTICLES_PER_PAGE, notice, form });
  }

  router.get('/publikasjoner/:id', async (req, res) => {
    const publication = await publicationFor(res, req.params.id);
    sendPage(res, 200, await renderPublication(req, res, publication));
  });

  router.post('/publikasjoner/:id/publiser', async (req, res) => {
    const publication = await publicationFor(res, req.params.id);
    await publishArticle(deps.publishingStore, studioCaller(res), { publication_id: publication.id, node_id: formId((req.body as Record<string, unknown>).node_id, 'node_id') });
    res.redirect(303, `/studio/publikasjoner/${publication.id}?ok=publisert`);
  });

  router.post('/publikasjoner/:id/avpubliser', async (req, res) => {
    const publication = await publicationFor(res, req.params.id);
    await unpublishArticle(deps.publishingStore, studioCaller(res), { edge_id: formId((req.body as Record<string, unknown>).edge_id, 'edge_id') });
    res.redirect(303, `/studio/publikasjoner/${publication.id}?ok=avpublisert`);
  });

  router.post('/publikasjoner/:id/varianter', async (req, res) => {
    const publication = await publicationFor(res, req.params.id);
    const values = valuesOf(req.body);
    await handleForm(res, values, (state) => renderPublication(req, res, publication, state), async () => {
      // The API's own body schema: the same rules as create_variant, told per field on the form.
      const body = parseForm(CreateVariantBody, { publication_id: publication.id, article_id: values.article_id, variant_type: values.variant_type, title: values.title, teaser: values.teaser || null, with_original: true }, VARIANT_LABELS);
      await createVariant(deps.publishingStore, studioCaller(res), body);
      res.redirect(303, `/studio/publikasjoner/${publication.id}?ok=variant`);
    });
  });
}

function publicationPage(
  view: StudioView,
  publication: PublicationEntry,
  articles: ArticleEntry[],
  tests: TestResult[],
  hours: VariantHour[],
  options: { administers: boolean; page: number; more: boolean; notice?: string; form?: FormState },
) {
  const base = `/studio/publikasjoner/${publication.id}`;
  const publishForm = options.administers
    ? html`<section aria-labelledby="publiser"><h2 id="publiser">Publiser en artikkel</h2>
<form method="post" action="${base}/publiser" class="row">${csrfField(view)}<div><label for="node_id">Nodens id</label><input id="node_id" name="node_id" required size="38" pattern="[0-9a-fA-F-]{36}"></div><button type="submit">Publiser</button></form></section>`
    : '';
  const pager = html`<nav aria-label="Sider" class="row">${options.page > 1 ? html`<a href="${base}?side=${options.page - 1}">Nyere</a>` : ''}${options.more ? html`<a href="${base}?side=${options.page + 1}">Eldre</a>` : ''}</nav>`;
  return layout(
    view,
    publication.title,
    html`${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : ''}
<p><a href="/pub/${publication.slug}">Se forsiden</a></p>
${publishForm}
${articles.length ? articles.map((a) => articleSection(view, base, a, tests.filter((t) => t.article_id === a.id), hours, options.administers, options.form)) : html`<p>Ingen publiserte artikler.</p>`}
${pager}`,
  );
}

function articleSection(view: StudioView, base: string, article: ArticleEntry, results: TestResult[], hours: VariantHour[], administers: boolean, form?: FormState) {
  const heading = `artikkel-${article.id}`;
  const tested = results.map(testViewOf);
  const tests = [...tested, ...loneViews(article.variants, new Set(tested.map((t) => t.variantType)))];
  return html`<section aria-labelledby="${heading}"><h2 id="${heading}">${article.title ?? 'Uten tittel'}</h2>
<div>Publisert ${timeTag(article.publishedAt)}. ${administers ? actionButton(view, `${base}/avpubliser`, 'Avpubliser', { edge_id: article.publishedEdgeId }) : ''}</div>
${tests.length ? tests.map((t) => testSection(view, base, article, t, hours, administers)) : html`<p>Ingen forsidevarianter: forsiden viser artikkelens egen tittel.</p>`}
${administers ? variantForm(view, base, article, form?.values.article_id === article.id ? form : undefined) : ''}
</section>`;
}

const VARIANT_LABELS: Record<string, string> = { article_id: 'Artikkel', variant_type: 'Varianttype', title: 'Tittel', teaser: 'Ingress' };

function variantForm(view: StudioView, base: string, article: ArticleEntry, refused?: FormState) {
  const state = refused ?? EMPTY_FORM;
  const ids = Object.fromEntries(Object.keys(VARIANT_LABELS).map((name) => [name, `${name}-${article.id}`]));
  return html`<details${refused ? html` open` : ''}><summary>Legg til en variant</summary>
${errorSummary(state, ids)}
<form method="post" action="${base}/varianter">${csrfField(view)}<input type="hidden" name="article_id" value="${article.id}">
${field(state, { name: 'variant_type', id: ids.variant_type, label: VARIANT_LABELS.variant_type!, required: true, value: 'headline', maxlength: 63 })}
${field(state, { name: 'title', id: ids.title, label: VARIANT_LABELS.title!, required: true, maxlength: 300 })}
${field(state, { name: 'teaser', id: ids.teaser, label: VARIANT_LABELS.teaser!, type: 'textarea', rows: 2, maxlength: 1000 })}
<p><button type="submit">Legg til variant</button></p></form></details>`;
}
