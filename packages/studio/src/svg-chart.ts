import { html, Html } from '@inntak/publishing';

export interface ChartSeries {
  label: string;
  points: ReadonlyArray<{ x: Date; y: number }>;
}

/**
 * A line chart as inline SVG, drawn on the server: no script, no CDN. Colours come with dash
 * patterns so series differ without colour, and the chart has a title and a description for
 * screen readers (the page shows the same figures in a table beside it).
 */
const WIDTH = 640;
const HEIGHT = 240;
const PAD = { left: 48, right: 12, top: 12, bottom: 28 };
const STYLES = [
  { stroke: '#0b5cad', dash: '' },
  { stroke: '#b3261e', dash: '6 3' },
  { stroke: '#1e7b34', dash: '2 3' },
  { stroke: '#6b3fa0', dash: '10 3 2 3' },
  { stroke: '#8a5a00', dash: '1 2' },
];

export function lineChart(options: { id: string; title: string; description: string; series: readonly ChartSeries[]; formatY: (y: number) => string; yMax?: number }): Html {
  const all = options.series.flatMap((s) => s.points);
  if (all.length === 0) return html`<p>${options.title}: ingen målinger ennå.</p>`;
  const xs = all.map((p) => p.x.getTime());
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs, x0 + 1);
  const yMax = options.yMax ?? Math.max(...all.map((p) => p.y), 1e-9) * 1.1;
  const sx = (x: number) => PAD.left + ((x - x0) / (x1 - x0)) * (WIDTH - PAD.left - PAD.right);
  const sy = (y: number) => HEIGHT - PAD.bottom - (y / yMax) * (HEIGHT - PAD.top - PAD.bottom);
  const ticks = [0, 0.5, 1].map((f) => f * yMax);
  const day = (t: number) => new Date(t).toLocaleString('nb-NO', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', timeZone: 'Europe/Oslo' });
  const lines = options.series.map((s, i) => {
    const style = STYLES[i % STYLES.length]!;
    const points = s.points.map((p) => `${sx(p.x.getTime()).toFixed(1)},${sy(p.y).toFixed(1)}`).join(' ');
    return html`<polyline fill="none" stroke="${style.stroke}" stroke-width="2" stroke-dasharray="${style.dash}" points="${points}"><title>${s.label}</title></polyline>`;
  });
  const legend = options.series.map((s, i) => {
    const style = STYLES[i % STYLES.length]!;
    return html`<li><svg width="28" height="10" aria-hidden="true" focusable="false"><line x1="0" y1="5" x2="28" y2="5" stroke="${style.stroke}" stroke-width="2" stroke-dasharray="${style.dash}"></line></svg> ${s.label}</li>`;
  });
  const id = `chart-${options.id}`;
  return html`<figure class="chart">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="${id}-t ${id}-d" preserveAspectRatio="xMidYMid meet">
<title id="${id}-t">${options.title}</title>
<desc id="${id}-d">${options.description}</desc>
${ticks.map((t) => html`<line x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${sy(t).toFixed(1)}" y2="${sy(t).toFixed(1)}" stroke="#ddd"></line><text x="${PAD.left - 4}" y="${(sy(t) + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#333">${options.formatY(t)}</text>`)}
<text x="${PAD.left}" y="${HEIGHT - 8}" font-size="11" fill="#333">${day(x0)}</text>
<text x="${WIDTH - PAD.right}" y="${HEIGHT - 8}" font-size="11" fill="#333" text-anchor="end">${day(x1)}</text>
${lines}
</svg>
<figcaption><ul class="legend">${legend}</ul></figcaption>
</figure>`;
}
