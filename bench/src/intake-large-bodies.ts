/**
 * npm run bench:intake-large — does a large body stall everyone else? The API runs as its own
 * process; this process posts 8 copies of a 25 MB GitHub push at once to one webhook while a
 * child process posts a small delivery to another webhook every 50 ms and records each one's
 * latency. Prints the small deliveries' p50/p99/max during the large ones (goal: max < 1 s,
 * issue #11) and the same without large bodies, measured just before, for comparison.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '@inntak/postgres';
import { percentile, scratchDatabase } from './bench-database.js';
import { createCollection, createPerson, OPERATOR } from '@inntak/access';
import { createWebhook } from '@inntak/intake';
import { storesOn } from '@inntak/postgres/testing';

const PORT = 19080 + Math.floor(Math.random() * 1000);
const PARALLEL = 8;
const COMMITS = 25_000; // ≈ 24.9 MB

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
const scratch = await scratchDatabase('inntak_bench_intake_large');
const handle = openDatabase({ connectionString: scratch.url, logger: quiet });
const owner = await createPerson(storesOn(handle.db).graph, { subject: 'bench' });
const collection = await createCollection(storesOn(handle.db).graph, { title: 'Bench', ownerId: owner.id });
const large = await createWebhook(storesOn(handle.db).webhookAdmin, OPERATOR, { collectionId: collection.id, templateId: 'forge-push' });
const small = await createWebhook(storesOn(handle.db).webhookAdmin, OPERATOR, { collectionId: collection.id });
await handle.close();

const api = spawn(process.execPath, [fileURLToPath(new URL('../../apps/api/dist/main.js', import.meta.url))], {
  env: { ...process.env, DATABASE_URL: scratch.url, PORT: String(PORT), LOG_LEVEL: 'error' },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const base = `http://127.0.0.1:${PORT}`;
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${base}/health`)).ok) break;
  } catch {
    if (i > 100) throw new Error('API did not come up');
  }
  await new Promise((r) => setTimeout(r, 100));
}

/** Small deliveries from their own process until stdin closes; prints the latencies as JSON. */
const SMALL_SENDER = `
const url = process.argv[1];
const latencies = [];
let stop = false;
process.stdin.on('end', () => (stop = true));
process.stdin.resume();
while (!stop) {
  const started = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"title":"liten"}' });
  await res.arrayBuffer();
  latencies.push(res.status === 200 ? performance.now() - started : Infinity);
  await new Promise((resolve) => setTimeout(resolve, 50));
}
console.log(JSON.stringify(latencies));
`;

async function smallLatenciesDuring(work: () => Promise<unknown>): Promise<number[]> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', SMALL_SENDER, `${base}/api/webhook/${small.token}`], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk) => (out += String(chunk)));
  await work();
  child.stdin.end();
  await once(child, 'exit');
  return (JSON.parse(out) as number[]).sort((a, b) => a - b);
}

const show = (label: string, l: number[]) =>
  console.log(`${label.padEnd(34)} n=${String(l.length).padStart(4)}  p50 ${percentile(l, 50).toFixed(0).padStart(5)} ms  p99 ${percentile(l, 99).toFixed(0).padStart(5)} ms  max ${l[l.length - 1]!.toFixed(0).padStart(5)} ms`);

const commits = Array.from({ length: COMMITS }, (_, i) => ({
  id: i.toString(16).padStart(40, '0'),
  message: `Commit ${i}\n\n${'Lorem ipsum dolor sit amet. '.repeat(30)}`,
  author: { name: 'Alice', email: 'alice@example.com', username: 'alice' },
  url: `https://github.com/acme/widget/commit/${i}`,
}));
const body = Buffer.from(JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'acme/widget' }, pusher: { name: 'alice' }, commits }));

const idle = await smallLatenciesDuring(() => new Promise((r) => setTimeout(r, 10_000)));
let slowest = 0;
const statuses: number[] = [];
const busy = await smallLatenciesDuring(async () => {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: PARALLEL }, async () => {
      const res = await fetch(`${base}/api/webhook/${large.token}`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-GitHub-Event': 'push' }, body });
      await res.arrayBuffer();
      statuses.push(res.status);
      slowest = performance.now() - started;
    }),
  );
});
console.log(`small deliveries (17 B) to one webhook, every 50 ms, from their own process:`);
show('alone (10 s)', idle);
show(`during ${PARALLEL} × ${(body.length / 1024 / 1024).toFixed(1)} MB at once`, busy);
console.log(`large: statuses ${statuses.join(',')}, all answered after ${(slowest / 1000).toFixed(1)} s`);

api.kill('SIGTERM');
await once(api, 'exit');
await scratch.drop();
