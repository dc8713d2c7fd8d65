import { cumulativeCtr, formatPercent, lineChart, type ArticleEntry, type TestView, type VariantHour } from '@inntak/studio';
import { html } from '@inntak/publishing';
import { actionButton, type StudioView } from './studio-html.js';

/** One front-page test of an article on the publication's page: its table, explanation and chart. */
export function testSection(view: StudioView, base: string, article: ArticleEntry, test: TestView, hours: VariantHour[], administers: boolean) {
  const ids = new Set(test.variants.map((v) => v.id));
  const series = cumulativeCtr(hours.filter((h) => ids.has(h.variantId)));
  const titleOf = (id: string) => test.variants.find((v) => v.id === id)?.title ?? id;
  const rows = test.variants.map(
    (v) => html`<tr><th scope="row">${v.title}</th><td>${statusText(v.status)}</td><td>${v.impressions}</td><td>${v.clicks}</td>
<td>${formatPercent(v.ctr)}</td><td>${formatPercent(v.interval.low)}–${formatPercent(v.interval.high)}</td>
<td>${v.lift === null ? '–' : `${signed(v.lift.estimate)} (${signed(v.lift.low)} til ${signed(v.lift.high)})`}</td>
${administers ? html`<td>${v.status === 'winner' || v.status === null ? '' : actionButton(view, `${base}/vinner`, html`Velg som vinner<span class="vh">: ${v.title}</span>`, { edge_id: v.id })}</td>` : ''}</tr>`,
  );
  return html`<h3>Test: ${test.variantType}${test.round !== null && test.round > 1 ? ` (runde ${test.round})` : ''}</h3>
<p>${test.explanation}</p>
<div class="scroll" role="region" tabindex="0" aria-label="Tabell (kan rulles sideveis)"><table><caption>Varianter av ${test.variantType} for «${article.title ?? 'artikkelen'}»</caption>
<thead><tr><th scope="col">Variant</th><th scope="col">Status</th><th scope="col">Visninger</th><th scope="col">Klikk</th><th scope="col">Klikkrate</th><th scope="col">95 % intervall</th><th scope="col">Løft mot første (95 %-intervall)</th>${administers ? html`<th scope="col">Handling</th>` : ''}</tr></thead>
<tbody>${rows}</tbody></table></div>
${lineChart({
  id: `${article.id}-${test.variantType}`,
  title: `Akkumulert klikkrate per variant (${test.variantType})`,
  description: `Klikkrate over tid for ${test.variants.length} varianter; tallene står i tabellen over.`,
  series: series.map((s) => ({ label: titleOf(s.variantId), points: s.points.map((p) => ({ x: p.at, y: p.ctr })) })),
  formatY: formatPercent,
})}`;
}

function signed(x: number): string {
  return `${x >= 0 ? '+' : ''}${formatPercent(x)}`;
}

function statusText(status: string | null): string {
  return status === 'testing' ? 'testes' : status === 'winner' ? 'vinner' : status === 'retired' ? 'trukket tilbake' : 'alene';
}
