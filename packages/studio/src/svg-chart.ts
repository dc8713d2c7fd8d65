import { html, Html } from '@inntak/publishing';

export interface ChartSeries {
  label: string;
  points: ReadonlyArray<{ x: Date; y: number }>;
}

/**
 * A line chart drawn on the server: no script, no CDN. Only the lines are SVG, stretched to the
 * plot's box (preserveAspectRatio none, strokes that do not scale); every word and number — the
 * axis labels and the legend — is HTML text in the page's font size, so it reads at 390 px as at
 * 1280 px (an SVG with its text inside shrank it to ~5 px on a phone, issue 39). Each point is
 * also drawn as a dot, so a series with a single point (the first minutes of a test) shows.
 * Colours come with dash patterns so series differ without colour, and the chart has a title and
 * a description for screen readers (the page shows the same figures in a table beside it).
 */
const WIDTH = 600;
const HEIGHT = 200;
const STYLES = [
  { stroke: '#0b5cad', dash: '' },
  { stroke: '#b3261e', dash: '6 3' },
  { stroke: '#1e7b34', dash: '2 3' },
  { stroke: '#6b3fa0', dash: '10 3 2 3' },
  { stroke: '#8a5a00', dash: '1 2' },
];

/** The chart's styles, for the console's stylesheet: the plot's box, its axes and the legend. */
export const CHART_CSS = `.chart{margin:1rem 0;max-width:42rem}
.chart .plot{display:grid;grid-template-columns:auto 1fr;gap:0 .5rem}
.chart .y{display:flex;flex-direction:column;justify-content:space-between;text-align:right;font-size:.875rem;color:#333}
.chart .lines{width:100%;height:12rem;border-left:1px solid #888;border-bottom:1px solid #888;display:block}
.chart .x{display:flex;justify-content:space-between;flex-wrap:wrap;gap:0 1rem;font-size:.875rem;color:#333;grid-column:2}
.chart .legend{list-style:none;padding:0;margin:.5rem 0 0;display:flex;flex-wrap:wrap;gap:.25rem 1rem;font-size:.875rem}
.chart .legend svg{width:2rem;height:.75rem;vertical-align:middle}`;

export function lineChart(options: { id: string; title: string; description: string; series: readonly ChartSeries[]; formatY: (y: number) => string; yMax?: number }): Html {
  const all = options.series.flatMap((s) => s.points);
  if (all.length === 0) return html`<p>${options.title}: ingen målinger ennå.</p>`;
  const xs = all.map((p) => p.x.getTime());
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs);
  const yMax = options.yMax ?? Math.max(...all.map((p) => p.y), 1e-9) * 1.1;
  // One moment only: its points stand in the middle.
  const sx = (x: number) => (x1 === x0 ? WIDTH / 2 : ((x - x0) / (x1 - x0)) * WIDTH);
  const sy = (y: number) => HEIGHT - (y / yMax) * HEIGHT;
  const time = (t: number) => new Date(t).toLocaleString('nb-NO', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', timeZone: 'Europe/Oslo' });
  const lines = options.series.map((s, i) => {
    const style = STYLES[i % STYLES.length]!;
    const points = s.points.map((p) => `${sx(p.x.getTime()).toFixed(1)},${sy(p.y).toFixed(1)}`);
    // A zero-length segment with round caps is a dot that keeps its size however the box stretches.
    const dots = s.points.length <= 60 ? points.map((p) => html`<polyline points="${p} ${p}" stroke="${style.stroke}" stroke-width="7" stroke-linecap="round" vector-effect="non-scaling-stroke"></polyline>`) : [];
    return html`<g><title>${s.label}</title><polyline fill="none" stroke="${style.stroke}" stroke-width="2" stroke-dasharray="${style.dash}" vector-effect="non-scaling-stroke" points="${points.join(' ')}"></polyline>${dots}</g>`;
  });
  const legend = options.series.map((s, i) => {
    const style = STYLES[i % STYLES.length]!;
    return html`<li><svg viewBox="0 0 28 10" aria-hidden="true" focusable="false"><line x1="0" y1="5" x2="28" y2="5" stroke="${style.stroke}" stroke-width="3" stroke-dasharray="${style.dash}"></line></svg> ${s.label}</li>`;
  });
  const id = `chart-${options.id}`;
  return html`<figure class="chart">
<div class="plot"><div class="y" aria-hidden="true"><span>${options.formatY(yMax)}</span><span>${options.formatY(yMax / 2)}</span><span>${options.formatY(0)}</span></div>
<svg class="lines" viewBox="0 0 ${WIDTH} ${HEIGHT}" preserveAspectRatio="none" role="img" aria-labelledby="${id}-t ${id}-d">
<title id="${id}-t">${options.title}</title>
<desc id="${id}-d">${options.description}</desc>
${[0.5].map((f) => html`<line x1="0" x2="${WIDTH}" y1="${(HEIGHT * f).toFixed(1)}" y2="${(HEIGHT * f).toFixed(1)}" stroke="#ddd" vector-effect="non-scaling-stroke"></line>`)}
${lines}
</svg>
<div class="x" aria-hidden="true"><span>${time(x0)}</span>${x1 > x0 ? html`<span>${time(x1)}</span>` : ''}</div></div>
<figcaption><ul class="legend">${legend}</ul></figcaption>
</figure>`;
}
