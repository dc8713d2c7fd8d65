/**
 * Payloads rendered per second of one core's CPU time by each template on the shared fixtures. Parsing is not counted: intake hands templates an already parsed body.
 *   npm run bench:templates [-- seconds-per-template]
 */
import { readFileSync } from 'node:fs';
import { TEMPLATES, type Headers } from '@inntak/templates';

const FIXTURES = new URL('../../../shared/fixtures/', import.meta.url);
const SECONDS = Number(process.argv[2] ?? 1.5);

interface Sample {
  payload: unknown;
  headers: Headers;
}

function samplesByTemplate(): Map<string, Sample[]> {
  const rows = readFileSync(new URL('MANIFEST.tsv', FIXTURES), 'utf8').trim().split('\n').slice(1);
  const byTemplate = new Map<string, Sample[]>();
  for (const row of rows) {
    const [file, templateId, , eventHeader] = row.split('\t') as [string, string, string, string];
    const headers: Record<string, string> = {};
    if (eventHeader !== '-') {
      const eq = eventHeader.indexOf('=');
      headers[eventHeader.slice(0, eq).toLowerCase()] = eventHeader.slice(eq + 1);
    }
    const payload: unknown = JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8'));
    byTemplate.set(templateId, [...(byTemplate.get(templateId) ?? []), { payload, headers }]);
  }
  return byTemplate;
}

/**
 * Payloads per CPU-second of this process: on a shared machine wall time also counts the time
 * other processes hold the core, CPU time does not.
 */
function measure(render: (payload: unknown, headers: Headers) => unknown, samples: Sample[]): number {
  let sink = 0;
  // Warm up so the figure is the optimised code's, not the interpreter's.
  for (let i = 0; i < 5000; i++) sink += render(samples[i % samples.length]!.payload, samples[i % samples.length]!.headers) ? 1 : 0;
  let count = 0;
  const wallStart = Date.now();
  const cpuStart = process.cpuUsage();
  while (Date.now() - wallStart < SECONDS * 1000) {
    for (const s of samples) sink += render(s.payload, s.headers) ? 1 : 0;
    count += samples.length;
  }
  const cpu = process.cpuUsage(cpuStart);
  if (sink < 0) console.log(sink);
  return count / ((cpu.user + cpu.system) / 1e6);
}

const samples = samplesByTemplate();
console.log(`template            fixtures   payloads per CPU-second (one core; ${SECONDS}s each)`);
for (const template of TEMPLATES) {
  const own = samples.get(template.id) ?? [];
  if (own.length === 0) continue;
  const rate = measure((p, h) => template.render(p, h), own);
  console.log(`${template.id.padEnd(20)}${String(own.length).padStart(8)}   ${Math.round(rate).toLocaleString('en-US').padStart(12)}`);
}
