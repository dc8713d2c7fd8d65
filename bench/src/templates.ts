/**
 * Payloads rendered per second of one core's CPU time by each template on the shared fixtures.
 * CPU time rather than wall time, so that a shared machine's other load does not count.
 * Parsing is not counted: intake hands templates an already parsed body.
 *   npm run bench:templates [-- seconds-per-template]
 */
import { readFileSync } from 'node:fs';
import { TEMPLATES, type Headers } from '@inntak/templates';

const FIXTURES = new URL('../../packages/templates/fixtures/', import.meta.url);
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
function measure(render: (payload: unknown, headers: Headers) => unknown, samples: Sample[]): { rate: number; share: number } {
  let sink = 0;
  const loop = (ms: number): number => {
    let count = 0;
    const until = Date.now() + ms;
    while (Date.now() < until) {
      for (const s of samples) sink += render(s.payload, s.headers) ? 1 : 0;
      count += samples.length;
    }
    return count;
  };
  // Warm up until the optimising compiler has had its go on every sender's reader: each sees only
  // its share of the calls, so the warm-up counts rounds over all samples, not time.
  for (let round = 0; round < 3000; round++) for (const s of samples) sink += render(s.payload, s.headers) ? 1 : 0;
  const wallStart = Date.now();
  const cpuStart = process.cpuUsage();
  const count = loop(SECONDS * 1000);
  const cpu = process.cpuUsage(cpuStart);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  if (sink < 0) console.log(sink);
  return { rate: count / cpuSeconds, share: cpuSeconds / ((Date.now() - wallStart) / 1000) };
}

const samples = samplesByTemplate();
console.log(`template            fixtures   payloads per CPU-second   CPU share (one core; ${SECONDS}s each)`);
for (const template of TEMPLATES) {
  const own = samples.get(template.id) ?? [];
  if (own.length === 0) continue;
  const { rate, share } = measure((p, h) => template.render(p, h), own);
  // A CPU share well under 1 means other processes held the core; figures then run low.
  console.log(
    `${template.id.padEnd(20)}${String(own.length).padStart(8)}   ${Math.round(rate).toLocaleString('en-US').padStart(22)}   ${share.toFixed(2).padStart(9)}`,
  );
}
