import type { Response, Router } from 'express';
import { AppError, isUuid } from '@inntak/core';
import { abResults, type AbResultsStore } from '@inntak/ab-testing';
import { abOverride, html, pauseAbTest, resumeAbTest, type PublishingStore } from '@inntak/publishing';
import {
  cumulativeCtr,
  estimateInWords,
  formatPercent,
  liftInWords,
  lineChart,
  testViewOf,
  uncountedInWords,
  type ArticleEntry,
  type PublicationEntry,
  type StudioReads,
  type TestView,
  type VariantHour,
  type VariantResult,
} from '@inntak/studio';
import { actionButton, csrfField, layout, sendPage, type StudioView } from './studio-html.js';
import { studioCaller, viewOf } from './studio-session.js';

export interface StudioAbTestDeps {
  publishingStore: PublishingStore;
  abResults: AbResultsStore;
  studio: { reads: StudioReads };
}

/**
 * The editor's A/B actions (issue 39, point 4): choosing a winner — through a confirmation page
 * that says what is known while the test has not decided, straight after it has — and pausing
 * and resuming a test. Each form makes one call of its use case (ab_override, pause_ab_test,
 * resume_ab_test); the use cases decide who may.
 */
export function installStudioAbTest(router: Router, deps: StudioAbTestDeps): void {
  async function publicationFor(res: Response, raw: unknown): Promise<PublicationEntry> {
    const id = isUuid(raw) ? raw : undefined;
    const publication = id && (await deps.studio.reads.publication(studioCaller(res), id));
    if (!publication) throw new AppError('not_found', { detail: 'publikasjonen' });
    return publication;
  }

  /** The test the variant is in, as the page shows it (404 when the caller's results have no such variant). */
  async function testOf(res: Response, publication: PublicationEntry, edgeId: unknown) {
    if (!isUuid(edgeId)) throw new AppError('invalid_input', { detail: 'varianten mangler' });
    const { tests } = await abResults(deps.abResults, studioCaller(res), publication.id);
    const result = tests.find((t) => t.variants.some((v) => v.edge_id === edgeId));
    if (!result) throw new AppError('not_found', { detail: 'varianten' });
    const test = testViewOf(result);
    return { test, articleId: result.article_id, articleTitle: result.article_title, variant: test.variants.find((v) => v.id === edgeId)! };
  }

  router.get('/publikasjoner/:id/vinner', async (req, res) => {
    const publication = await publicationFor(res, req.params.id);
    const { test, articleTitle, variant } = await testOf(res, publication, req.query.edge_id);
    sendPage(res, 200, confirmPage(viewOf(res), publication, test, articleTitle, variant));
  });

  router.post('/publikasjoner/:id/vinner', async (req, res) => {
    const publication = await publicationFor(res, req.params.id);
    const body = req.body as Record<string, unknown>;
    // Before the test has decided, a winner is chosen only from the confirmation page, which says what is known.
    if (body.bekreftet !== 'ja') {
      const { test, variant } = await testOf(res, publication, body.edge_id);
      if (test.status === 'testing') return res.redirect(303, `/studio/publikasjoner/${publication.id}/vinner?edge_id=${variant.id}`);
    }
    if (!isUuid(body.edge_id)) throw new AppError('invalid_input', { detail: 'varianten mangler' });
    await abOverride(deps.publishingStore, studioCaller(res), { edge_id: body.edge_id });
    res.redirect(303, `/studio/publikasjoner/${publication.id}?ok=vinner`);
  });

  for (const [path, paused] of [
    ['pause', true],
    ['fortsett', false],
  ] as const) {
    router.post(`/publikasjoner/:id/${path}`, async (req, res) => {
      const publication = await publicationFor(res, req.params.id);
      const body = req.body as Record<string, unknown>;
      if (!isUuid(body.article_id) || typeof body.variant_type !== 'string') throw new AppError('invalid_input', { detail: 'testen mangler' });
      const ref = { publication_id: publication.id, article_id: body.article_id, variant_type: body.variant_type };
      await (paused ? pauseAbTest : resumeAbTest)(deps.publishingStore, studioCaller(res), ref);
      res.redirect(303, `/studio/publikasjoner/${publication.id}?ok=${path}`);
    });
  }
}

function confirmPage(view: StudioView, publication: PublicationEntry, test: TestView, articleTitle: string | null, variant: VariantResult) {
  const base = `/studio/publikasjoner/${publication.id}`;
  const decided = test.status !== 'testing';
  return layout(
    view,
    `Velg «${variant.title}» som vinner?`,
    html`<p>Artikkel: «${articleTitle ?? 'Uten tittel'}», test av ${test.variantType}.</p>
${decided ? '' : html`<p class="error" role="alert"><strong>Testen har ikke avgjort ennå.</strong> ${test.explanation}</p>`}
${test.lowData ? lowDataWarning() : ''}
<h2>Det vi vet nå</h2>
<ul>${test.variants.map((v) => html`<li>«${v.title}»${v.control ? ' (originalen)' : ''}: ${v.impressions.toLocaleString('nb-NO')} visninger, ${v.clicks.toLocaleString('nb-NO')} klikk (${formatPercent(v.ctr)}).${v.lift ? html` ${liftInWords(v.lift)}` : ''}</li>`)}</ul>
${estimateInWords(test.estimate) ? html`<p>${estimateInWords(test.estimate)}</p>` : ''}
<p>Velger du «${variant.title}» nå, vises den for alle lesere, de andre variantene trekkes tilbake, og testen stopper. Valget står i testens historikk med ditt navn.</p>
<form method="post" action="${base}/vinner" class="row">${csrfField(view)}<input type="hidden" name="edge_id" value="${variant.id}"><input type="hidden" name="bekreftet" value="ja"><button type="submit">Ja, velg «${variant.title}» som vinner</button></form>
<p><a href="${base}">Nei, la testen gå videre</a></p>`,
  );
}

function lowDataWarning() {
  return html`<p class="error"><strong>Lite data:</strong> tallene bygger på få visninger eller klikk og kan fortsatt snu. En forskjell nå er ofte tilfeldig.</p>`;
}

/** One front-page test of an article on the publication's page: what is known in words, the table, the chart, the actions. */
export function testSection(view: StudioView, base: string, article: ArticleEntry, test: TestView, hours: VariantHour[], administers: boolean) {
  const ids = new Set(test.variants.map((v) => v.id));
  const series = cumulativeCtr(hours.filter((h) => ids.has(h.variantId)));
  const titleOf = (id: string) => {
    const v = test.variants.find((x) => x.id === id);
    return v ? `${v.title}${v.control ? ' (originalen)' : ''}` : id;
  };
  const rows = test.variants.map(
    (v) => html`<tr><th scope="row">${v.title}${v.control ? html` <span class="hint">(originalen)</span>` : ''}</th><td>${statusText(v.status)}</td><td>${v.impressions.toLocaleString('nb-NO')}</td><td>${v.clicks.toLocaleString('nb-NO')}</td>
<td>${formatPercent(v.ctr)}</td><td>${formatPercent(v.interval.low)}–${formatPercent(v.interval.high)}</td>
<td>${v.lift === null ? (v.control ? 'sammenligningsgrunnlag' : '–') : liftInWords(v.lift)}</td>
${administers ? html`<td>${v.status === 'winner' || v.status === null ? '' : actionButton(view, `${base}/vinner`, html`Velg som vinner<span class="vh">: ${v.title}</span>`, { edge_id: v.id })}</td>` : ''}</tr>`,
  );
  const estimate = estimateInWords(test.estimate);
  const uncounted = uncountedInWords(test);
  const testRef = { article_id: article.id, variant_type: test.variantType };
  const pauseButton =
    administers && test.status === 'testing'
      ? test.paused
        ? actionButton(view, `${base}/fortsett`, html`Fortsett testen<span class="vh"> av ${test.variantType} for «${article.title ?? 'artikkelen'}»</span>`, testRef)
        : actionButton(view, `${base}/pause`, html`Sett testen på pause<span class="vh"> (${test.variantType} for «${article.title ?? 'artikkelen'}»)</span>`, testRef)
      : '';
  return html`<h3>Test: ${test.variantType}${test.round !== null && test.round > 1 ? ` (runde ${test.round})` : ''}${test.paused ? ' – på pause' : ''}</h3>
${test.paused ? html`<p class="notice">Testen står på pause: forsiden viser artikkelens egen tittel, og ingenting telles før den fortsetter.</p>` : ''}
<p>${test.explanation}</p>
${test.lowData ? lowDataWarning() : ''}
${estimate ? html`<p>${estimate}</p>` : ''}
${pauseButton ? html`<div>${pauseButton}</div>` : ''}
<div class="scroll" role="region" tabindex="0" aria-label="Tabell (kan rulles sideveis)"><table><caption>Varianter av ${test.variantType} for «${article.title ?? 'artikkelen'}»</caption>
<thead><tr><th scope="col">Variant</th><th scope="col">Status</th><th scope="col">Visninger</th><th scope="col">Klikk</th><th scope="col">Klikkrate</th><th scope="col">95 % intervall</th><th scope="col">Mot originalen</th>${administers ? html`<th scope="col">Handling</th>` : ''}</tr></thead>
<tbody>${rows}</tbody></table></div>
${uncounted ? html`<p>${uncounted.summary}</p>` : ''}
${uncounted?.capNotice ? html`<p class="notice">${uncounted.capNotice}</p>` : ''}
${lineChart({
  id: `${article.id}-${test.variantType}`,
  title: `Akkumulert klikkrate per variant (${test.variantType})`,
  description: `Klikkrate over tid for ${test.variants.length} varianter siden testen startet; tallene står i tabellen over.`,
  series: series.map((s) => ({ label: titleOf(s.variantId), points: s.points.map((p) => ({ x: p.at, y: p.ctr })) })),
  formatY: formatPercent,
})}`;
}

function statusText(status: string | null): string {
  return status === 'testing' ? 'testes' : status === 'winner' ? 'vinner' : status === 'retired' ? 'trukket tilbake' : 'alene';
}
