import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

const REPO = fileURLToPath(new URL('../../../../', import.meta.url));
const OUT = `${REPO}node_modules/.cache/inntak-test-worker/test-worker.mjs`;

// Workspace packages from their sources (like jest's moduleNameMapper); everything else stays an
// import of node_modules, so the bundle needs no `tsc -b` first.
const workspaceSources: Plugin = {
  name: 'workspace-sources',
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (args) => {
      const match = /^@inntak\/([a-z-]+)$/.exec(args.path);
      if (match) return { path: `${REPO}packages/${match[1]}/src/index.ts` };
      return { external: true };
    });
  },
};

let built: Promise<string> | undefined;
export function buildTestWorker(): Promise<string> {
  built ??= build({
    entryPoints: [fileURLToPath(new URL('./test-worker.ts', import.meta.url))],
    outfile: OUT,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
    plugins: [workspaceSources],
  }).then(() => OUT);
  return built;
}

export interface LogLine {
  message: string;
  level: string;
  [key: string]: unknown;
}

export interface WorkerProcessHandle {
  child: ChildProcess;
  logs: LogLine[];
  waitForLog(predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
  exited: Promise<number | null>;
  /** SIGTERM and wait for exit; returns the exit code. */
  stop(): Promise<number | null>;
}

export const TEST_WORKER_ENV = {
  WORKER_CONCURRENCY: '3',
  WORKER_POLL_INTERVAL_MS: '50',
  JOB_DEFER_MS: '30',
  JOB_HEARTBEAT_MS: '200',
  JOB_WORKER_STALE_MS: '2500',
  // Long on purpose: a rule change must arrive by NOTIFY, not by the cache running out.
  JOB_RULES_CACHE_MS: '600000',
  LIVE_ROOM_CACHE_MS: '200',
  WORKER_CRONTAB: '',
  LOG_LEVEL: 'info',
};

export async function spawnWorker(databaseUrl: string, env: Record<string, string> = {}, args: string[] = []): Promise<WorkerProcessHandle> {
  const entry = await buildTestWorker();
  const child = spawn(process.execPath, [entry, ...args], {
    env: { ...process.env, ...TEST_WORKER_ENV, ...env, DATABASE_URL: databaseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: LogLine[] = [];
  const waiters = new Set<() => void>();
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += String(chunk)));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      logs.push(JSON.parse(line) as LogLine);
    } catch {
      logs.push({ message: line, level: 'raw' });
    }
    for (const wake of waiters) wake();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const handle: WorkerProcessHandle = {
    child,
    logs,
    exited,
    waitForLog(predicate, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = logs.find(predicate);
          if (found) {
            cleanup();
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`worker log line not seen in ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
  await handle.waitForLog((line) => line.message === 'worker started', 15_000);
  return handle;
}

/** Polls until check returns a value (not undefined/false). */
export async function waitFor<T>(check: () => Promise<T | undefined | false>, timeoutMs = 60_000, everyMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
