import type { Request, Response, Router } from 'express';
import { AppError, isUuid } from '@inntak/core';
import { createVariant, html, unpublishArticle, type Html } from '@inntak/publishing';
import { abResults, type AbResultsStore, type TestResult } from '@inntak/ab-testing';
import { loneViews, testViewOf, type ArticleEntry, type PublicationEntry, type StudioReads, type VariantHour } from '@inntak/studio';
import { CreateVariantBody } from '../schemas.js';
import { EMPTY_FORM, errorSummary, field, handleForm, parseForm, valuesOf, type FormState } from './studio-forms.js';
import { actionButton, csrfField, layout, sendPage, timeTag, type StudioView } from './studio-html.js';
import { installStudioAbTest, testSection } from './studio-ab-test.js';
import { studioCaller, viewOf } from './studio-session.js';
import { administers, installStudioPublicationSettings, publicationFor, type StudioPublicationSettingsDeps } from './studio-publication-settings.js';
import { installStudioArticles, type StudioArticleDeps } from './studio-articles.js';
import { installStudioVariants, VARIANT_TYPES, variantList } from './studio-variants.js';

export interface StudioPublicationDeps extends StudioPublicationSettingsDeps, StudioArticleDeps {
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
  laget: 'Publikasjonen er laget. Du er eier av den.',
  innstillinger: 'Innstillingene er lagret.',
  'variant-endret': 'Varianten er endret.',
  'variant-ny-runde': 'Varianten er endret. Testen startet på nytt: bare visninger og klikk fra nå av teller.',
  'variant-fjernet': 'Varianten er fjernet.',
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
  installStudioPublicationSettings(router, deps);
  installStudioArticles(router, deps);
  // The A/B actions (choose a winner with a confirmation, pause, resume): studio-ab-test.ts.
  installStudioAbTest(router, deps);

  /** The publication's page; `form` is a refused variant form to show again on it. */
  async function renderPublication(req: Request, res: Response, publication: PublicationEntry, form?: FormState): Promise<Html> {
    const caller = studioCaller(res);
    const page = Math.min(Math.max(Number.parseInt(String(req.query.side ?? '1'), 10) || 1, 1), 1000);
    const articles = await reads.articles(publication.id, { limit: ARTICLES_PER_PAGE + 1, offset: (page - 1) * ARTICLES_PER_PAGE });
    const shown = articles.slice(0, ARTICLES_PER_PAGE);
    // The figures come from the API's A/B results use case (GET /publications/{id}/ab_results).
    const [results, hours] = await Promise.all([abResults(deps.abResults, caller, publication.id), reads.variantHours(shown.flatMap((a) => a.variants.map((v) => v.id)), CHART_HOURS)]);
    const notice = typeof req.query.ok === 'string' && !form ? NOTICES[req.query.ok] : undefined;
    return publicationPage(viewOf(res), publication, shown, results.tests, hours, { administers: administers(res, publication), page, more: articles.length > ARTICLES_PER_PAGE, notice, form });
  }

  // Who sees the buttons (administers); the use cases still decide (ab_override refuses anyone else with 403).
  installStudioVariants(router, deps, renderPublication);

  router.get('/publikasjoner/:id', async (req, res) => {
    const publication = await publicationFor(reads, res, req.params.id);
    sendPage(res, 200, await renderPublication(req, res, publication));
  });

  router.post('/publikasjoner/:id/avpubliser', async (req, res) => {
    const publication = await publicationFor(reads, res, req.params.id);
    await unpublishArticle(deps.publishingStore, studioCaller(res), { edge_id: formId((req.body as Record<string, unknown>).edge_id, 'edge_id') });
    res.redirect(303, `/studio/publikasjoner/${publication.id}?ok=avpublisert`);
  });

  router.post('/publikasjoner/:id/varianter', async (req, res) => {
    const publication = await publicationFor(reads, res, req.params.id);
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
  const actions = html`<ul class="actions"><li><a href="${base}/artikler/ny">Skriv en artikkel</a></li>
${options.administers ? html`<li><a href="${base}/velg">Publiser en artikkel</a> (søk blant dine noder)</li><li><a href="${base}/innstillinger">Innstillinger</a> (navn, språk, om)</li>` : ''}</ul>`;
  const pager = html`<nav aria-label="Sider" class="row">${options.page > 1 ? html`<a href="${base}?side=${options.page - 1}">Nyere</a>` : ''}${options.more ? html`<a href="${base}?side=${options.page + 1}">Eldre</a>` : ''}</nav>`;
  return layout(
    view,
    publication.title,
    html`${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : ''}
<p><a href="/pub/${publication.slug}">Se forsiden</a></p>
${actions}
${articles.length ? articles.map((a) => articleSection(view, base, a, tests.filter((t) => t.article_id === a.id), hours, options.administers, options.form)) : html`<p>Ingen publiserte artikler.</p>`}
${pager}`,
  );
}

function articleSection(view: StudioView, base: string, article: ArticleEntry, results: TestResult[], hours: VariantHour[], administers: boolean, form?: FormState) {
  const heading = `artikkel-${article.id}`;
  const tested = results.map(testViewOf);
  const tests = [...tested, ...loneViews(article.variants, new Set(tested.map((t) => t.variantType)))];
  return html`<section aria-labelledby="${heading}"><h2 id="${heading}">${article.title ?? 'Uten tittel'}</h2>
<div>Publisert ${timeTag(article.publishedAt)}. <a href="${base}/artikler/${article.id}">Rediger<span class="vh"> «${article.title ?? 'Uten tittel'}»</span></a> ${administers ? actionButton(view, `${base}/avpubliser`, html`Avpubliser<span class="vh"> «${article.title ?? 'Uten tittel'}»</span>`, { edge_id: article.publishedEdgeId }) : ''}</div>
${tests.length ? tests.map((t) => testSection(view, base, article, t, hours, administers)) : html`<p>Ingen forsidevarianter: forsiden viser artikkelens egen tittel.</p>`}
${administers ? variantList(view, base, article, form) : ''}
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
${field(state, { name: 'variant_type', id: ids.variant_type, label: VARIANT_LABELS.variant_type!, type: 'select', required: true, value: 'headline', options: variantTypes(article), hint: 'Varianter av samme type testes mot hverandre. Forsiden viser variantens tittel, og dens ingress eller ellers artikkelens.' })}
${field(state, { name: 'title', id: ids.title, label: VARIANT_LABELS.title!, required: true, maxlength: 300 })}
${field(state, { name: 'teaser', id: ids.teaser, label: VARIANT_LABELS.teaser!, type: 'textarea', rows: 2, maxlength: 1000 })}
<p><button type="submit">Legg til variant</button></p></form></details>`;
}

/** The explained types, and any other type the article's variants already have (made through the API). */
function variantTypes(article: ArticleEntry): Array<{ value: string; label: string }> {
  const known = new Set(VARIANT_TYPES.map((t) => t.value));
  const others = [...new Set(article.variants.map((v) => v.variantType))].filter((t) => !known.has(t));
  return [...VARIANT_TYPES, ...others.map((t) => ({ value: t, label: `${t} (finnes allerede)` }))];
}
