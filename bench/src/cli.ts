/**
 * How long one `inntak` call takes, by the way it is started and by command: the median wall
 * time of N runs of `--help`, `templates` (no database) and `webhook list` (a scratch database
 * under DATABASE_URL's server, or 127.0.0.1:5432, or an embedded one). Wall time, since that is
 * what a person at the shell waits: read it beside the load average printed with it.
 *   npm run bench:cli [-- runs]
 */
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { scratchDatabase } from './bench-database.js';

const RUNS = Number(process.argv[2] ?? 5);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The ways the README and docs/cli.md start the CLI, fastest expected first. */
const FORMS: { name: string; argv: (args: string[]) => string[] }[] = [
  { name: 'node -e 0 (node alone)', argv: () => [process.execPath, '-e', '0'] },
  { name: 'node apps/cli/dist/main.js', argv: (a) => [process.execPath, 'apps/cli/dist/main.js', ...a] },
  { name: './node_modules/.bin/inntak', argv: (a) => ['./node_modules/.bin/inntak', ...a] },
  { name: 'npm run --silent inntak --', argv: (a) => ['npm', 'run', '--silent', 'inntak', '--', ...a] },
  { name: 'npx --no-install inntak', argv: (a) => ['npx', '--no-install', 'inntak', ...a] },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function time(argv: string[], env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const run = spawnSync(argv[0]!, argv.slice(1), { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const ms = performance.now() - started;
  if (run.status !== 0) throw new Error(`${argv.join(' ')} exited ${run.status}: ${run.stderr.toString().slice(0, 500)}`);
  return ms;
}

const database = await scratchDatabase('inntak_bench_cli');
try {
  const env = { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: 'error' };
  const commands = [['--help'], ['templates'], ['webhook', 'list']];
  console.log(`inntak call, median of ${RUNS} runs (ms); load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} on this machine`);
  console.log(['form'.padEnd(30), ...commands.map((c) => c.join(' ').padStart(14))].join(''));
  for (const form of FORMS) {
    const cells = commands.map((args) => {
      const samples = Array.from({ length: RUNS }, () => time(form.argv(args), env));
      return median(samples).toFixed(0).padStart(14);
    });
    console.log([form.name.padEnd(30), ...cells].join(''));
  }
  console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await database.drop();
}
