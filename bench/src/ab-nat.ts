/**
 * Readers behind one carrier-grade NAT address (issue 39, point 4): how many of 1,000 readers on
 * one IPv4 address the A/B counting counts, through the real gate (AbClientGate, in memory), as
 * counting is now and under the alternatives weighed in docs/publishing.md ("Readers behind one
 * address"). Each reader is a phone or desktop browser (the User-Agent drawn from 12 common ones
 * with their weights) with its own visitor cookie; one front page, one article under test. Beside
 * it the other side of the trade-off: one script without cookies, one User-Agent, 1,000 loads.
 *   npm run bench:ab-nat [-- readers]   (default 1,000)
 */
import { createHash } from 'node:crypto';
import { AbClientGate, mulberry32 } from '@inntak/ab-testing';

const READERS = Number(process.argv[2] ?? 1000);
const AGENTS: Array<[agent: string, weight: number]> = [
  ['iPhone Safari 18.1', 24],
  ['iPhone Safari 18.0', 8],
  ['Android Chrome 130 (Samsung)', 14],
  ['Android Chrome 130 (Pixel)', 6],
  ['Android Samsung Internet 26', 6],
  ['iPad Safari 18.1', 5],
  ['Windows Chrome 130', 14],
  ['Windows Edge 130', 8],
  ['Windows Firefox 132', 3],
  ['macOS Safari 18.1', 6],
  ['macOS Chrome 130', 5],
  ['Linux Firefox 132', 1],
];
const TOTAL = AGENTS.reduce((sum, [, w]) => sum + w, 0);
const hash = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 22);

function agentOf(random: () => number): string {
  let u = random() * TOTAL;
  for (const [agent, weight] of AGENTS) if ((u -= weight) < 0) return agent;
  return AGENTS[0]![0];
}

/** Counted impressions of `readers` (agent, visitor id) on one address, the client keyed by `key`, at most `cap` clients. */
async function counted(readers: Array<{ agent: string; visitor: string }>, cap: number, key: (r: { agent: string; visitor: string }) => string): Promise<number> {
  const gate = new AbClientGate({ clientsPerAddress: cap });
  let count = 0;
  for (const reader of readers) {
    const grant = await gate.impressions({ network: 'nat-address', client: key(reader) }, 'publication', new Map([['article', 'variant']]));
    count += grant.counted.length;
  }
  return count;
}

const random = mulberry32(39);
const readers = Array.from({ length: READERS }, (_, i) => ({ agent: agentOf(random), visitor: `visitor-${i}` }));
const script = Array.from({ length: 1000 }, (_, i) => ({ agent: 'python-ish script', visitor: `fresh-${i}` }));
const byAgent = (r: { agent: string }) => hash(`203.0.113.7\n${r.agent}`);
const byCookie = (r: { agent: string; visitor: string }) => hash(`203.0.113.7\n${r.agent}\n${r.visitor}`);
const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(1)} %`;

console.log(`${READERS} readers on one IPv4 address, ${new Set(readers.map((r) => r.agent)).size} distinct User-Agents among them`);
console.log('counting unit                      cap    readers counted      a cookie-less script (1,000 loads)');
for (const [unit, key] of [
  ['address + User-Agent (now)', byAgent],
  ['address + User-Agent + cookie', byCookie],
] as const) {
  for (const cap of [16, 64, 256, 1024]) {
    const n = await counted(readers, cap, key);
    const bot = await counted(script, cap, key);
    console.log(`${unit.padEnd(34)} ${String(cap).padStart(4)}   ${String(n).padStart(5)} (${pct(n, READERS).padStart(7)})   ${String(bot).padStart(5)}`);
  }
}
