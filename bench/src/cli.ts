/**
 * How long one `inntak` call takes, by the way it is started and by command, and where the time
 * of a call goes. For each form and command: the median wall time and the median CPU time (user +
 * system of the whole process tree: npx, npm, node) of N runs of `--help`, `templates` (no
 * database), `webhook list` and `person list` (a scratch database under DATABASE_URL's server,
 * or 127.0.0.1:5432, or an embedded one). Then the phases of a `webhook list` through the
 * README's form, read from the CLI's own marks (LOG_LEVEL=debug, apps/cli/src/phases.ts). Wall
 * time is what a person at the shell waits, but on a shared machine it follows the load: read
 * it beside the load average printed with it, and the CPU time beside both.
 *   npm run bench:cli [-- runs [form-name-part]]
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { scratchDatabase } from './bench-database.js';

const RUNS = Number(process.argv[2] ?? 5);
const ONLY = process.argv[3];
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The ways the README and docs/cli.md start the CLI, fastest expected first. */
const FORMS: { name: string; argv: (args: string[]) => string[] }[] = [
  { name: 'node -e 0 (node alone)', argv: () => [process.execPath, '-e', '0'] },
  { name: 'node apps/cli/dist/main.js', argv: (a) => [process.execPath, 'apps/cli/dist/main.js', ...a] },
  { name: 'node apps/cli/bin/inntak.js', argv: (a) => [process.execPath, 'apps/cli/bin/inntak.js', ...a] },
  { name: './node_modules/.bin/inntak', argv: (a) => ['./node_modules/.bin/inntak', ...a] },
  { name: 'npm run --silent inntak --', argv: (a) => ['npm', 'run', '--silent', 'inntak', '--', ...a] },
  { name: 'npx --no-install inntak', argv: (a) => ['npx', '--no-install', 'inntak', ...a] },
];
/** The README's form: what the phases are measured through. */
const README_FORM = FORMS.find((f) => f.name === 'node apps/cli/bin/inntak.js')!;

interface Sample {
  wallMs: number;
  cpuMs: number;
  stderr: string;
}

const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** One run under bash, whose `times` gives the CPU time of the whole tree it waited for. */
function run(argv: string[], env: NodeJS.ProcessEnv): Sample {
  const started = performance.now();
  const child = spawnSync('bash', ['-c', '"$@" >/dev/null; s=$?; times; exit $s', 'bash', ...argv], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const wallMs = performance.now() - started;
  if (child.status !== 0) throw new Error(`${argv.join(' ')} exited ${child.status}: ${child.stderr.toString().slice(0, 500)}`);
  // `times` prints the shell's own user/system, then its children's: "0m0.123s 0m0.045s".
  const children = child.stdout.toString().trim().split('\n').pop()!;
  const cpuMs = [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + (Number(m[1]) * 60 + Number(m[2])) * 1000, 0);
  return { wallMs, cpuMs, stderr: child.stderr.toString() };
}

const database = await scratchDatabase('inntak_bench_cli');
try {
  const env = { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'error' };
  // Something to list: one person who owns a collection with a webhook.
  const made = spawnSync(process.execPath, ['apps/cli/dist/main.js', 'person', 'add', '--subject', 'bench'], { cwd: ROOT, env });
  const person = (JSON.parse(made.stdout.toString()) as { id: string }).id;
  const collection = JSON.parse(spawnSync(process.execPath, ['apps/cli/dist/main.js', 'collection', 'add', '--title', 'Bench', '--owner', person], { cwd: ROOT, env }).stdout.toString()) as {
    id: string;
  };
  spawnSync(process.execPath, ['apps/cli/dist/main.js', 'webhook', 'add', '--collection', collection.id], { cwd: ROOT, env });

  // person list came with issue 39; an older build is measured without it.
  const hasPersonList = spawnSync(process.execPath, ['apps/cli/dist/main.js', 'person', 'list', '--help'], { cwd: ROOT, env }).status === 0;
  const commands = [['--help'], ['templates'], ['webhook', 'list'], ...(hasPersonList ? [['person', 'list']] : [])];
  console.log(`inntak call, median of ${RUNS} runs: wall ms / CPU ms (the process tree's user + system)`);
  console.log(`load average before: ${load()}`);
  console.log(['form'.padEnd(30), ...commands.map((c) => c.join(' ').padStart(16))].join(''));
  for (const form of FORMS.filter((f) => ONLY === undefined || f.name.includes(ONLY) || f.name.startsWith('node -e'))) {
    const cells = commands.map((args) => {
      const samples = Array.from({ length: RUNS }, () => run(form.argv(args), env));
      return `${median(samples.map((s) => s.wallMs)).toFixed(0)} / ${median(samples.map((s) => s.cpuMs)).toFixed(0)}`.padStart(16);
    });
    console.log([form.name.padEnd(30), ...cells].join(''));
  }
  console.log(`load average after: ${load()}`);

  // The phases of one call, from the CLI's marks (ms since the process started, at each step).
  const phaseRuns = Array.from({ length: RUNS }, () => {
    const sample = run(README_FORM.argv(['webhook', 'list']), { ...env, LOG_LEVEL: 'debug' });
    const line = sample.stderr.split('\n').find((l) => l.includes('"phases"'));
    if (!line) throw new Error(`no phases logged: ${sample.stderr.slice(0, 500)}`);
    return { total: sample, marks: (JSON.parse(line) as { phases: { phase: string; ms: number; cpu_ms: number }[] }).phases };
  });
  const nodeAlone = Array.from({ length: RUNS }, () => run(FORMS[0]!.argv([]), env));
  console.log(`\nwhere a \`${README_FORM.name} webhook list\` goes, median of ${RUNS} runs: wall ms / CPU ms of each phase; load average ${load()}`);
  console.log(`${'node starts (node -e 0, whole)'.padEnd(52)}${`${median(nodeAlone.map((s) => s.wallMs)).toFixed(0)} / ${median(nodeAlone.map((s) => s.cpuMs)).toFixed(0)}`.padStart(14)}`);
  const names = phaseRuns[0]!.marks.map((m) => m.phase);
  names.forEach((name, i) => {
    const delta = (key: 'ms' | 'cpu_ms') => median(phaseRuns.map((r) => r.marks[i]![key] - (i === 0 ? 0 : r.marks[i - 1]![key])));
    console.log(`${(i === 0 ? `${name} (from the process's start)` : name).padEnd(52)}${`${delta('ms')} / ${delta('cpu_ms')}`.padStart(14)}`);
  });
  const lastMark = (r: (typeof phaseRuns)[number]) => r.marks.at(-1)!;
  console.log(`${'exit (after the last mark)'.padEnd(52)}${`${median(phaseRuns.map((r) => r.total.wallMs - lastMark(r).ms)).toFixed(0)} / ${median(phaseRuns.map((r) => r.total.cpuMs - lastMark(r).cpu_ms)).toFixed(0)}`.padStart(14)}`);
  console.log(`${'whole call'.padEnd(52)}${`${median(phaseRuns.map((r) => r.total.wallMs)).toFixed(0)} / ${median(phaseRuns.map((r) => r.total.cpuMs)).toFixed(0)}`.padStart(14)}`);
  console.log(`load average after: ${load()}`);
} finally {
  await database.drop();
}
