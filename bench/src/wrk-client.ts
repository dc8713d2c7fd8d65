import { spawn, spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { cpuMs, cpuUsed, type Figures } from './intake-ceilings.js';

/**
 * bench:intake's HTTP load from wrk (Debian package `wrk`), a C client like pgbench is for the
 * ceilings: on two cores the Node client's own CPU per request is taken from the API and the
 * database, so `--client wrk` shows what the service does with the machine, and the Node
 * client what it does beside a heavier sender. One thread, keep-alive connections, each POST
 * with a delivery id of its own (so the duplicate check runs on every one, as with the Node client).
 */
export const WRK = '/usr/bin/wrk';

export function hasWrk(): boolean {
  return spawnSync(WRK, ['--version']).error === undefined;
}

export interface WrkFigures extends Figures {
  /** Answers with a status other than 2xx/3xx. */
  statusErrors: number;
  /** CPU ms of wrk per answer over the middle of the run. */
  clientCpu?: number;
}

export async function wrkRun(options: {
  workDir: string;
  url: string;
  body: string;
  /** What every delivery id starts with. */
  deliveryPrefix: string;
  connections: number;
  seconds: number;
  /** Counts answers stored so far (read twice, for the CPU window). */
  answered: () => Promise<number>;
  /** Called at the window's two ends, with the answers stored so far, so the caller reads its own processes' CPU too. */
  atWindow: (edge: 'from' | 'to', answers: number) => Promise<void>;
}): Promise<WrkFigures> {
  const bodyFile = path.join(options.workDir, 'body.json');
  const script = path.join(options.workDir, 'post.lua');
  await writeFile(bodyFile, options.body);
  await writeFile(
    script,
    `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["X-GitHub-Event"] = "push"
local f = io.open("${bodyFile}", "rb")
wrk.body = f:read("*a")
f:close()
local seed = "${options.deliveryPrefix}" .. string.format("%x-%x", os.time(), math.floor(os.clock() * 1e6))
local n = 0
request = function()
  n = n + 1
  wrk.headers["X-GitHub-Delivery"] = seed .. "-" .. n
  return wrk.format()
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"status":%d,"socket":%d,"us":%d,"p50":%d,"p99":%d}\\n',
    summary.requests, e.status, e.connect + e.read + e.write + e.timeout, summary.duration, latency:percentile(50), latency:percentile(99)))
end
`,
  );
  const child = spawn(WRK, ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s', '-s', script, options.url]);
  let stdout = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stdout += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const window = Math.min(1000, (options.seconds * 1000) / 4);
  await new Promise((r) => setTimeout(r, window));
  const fromCpu = await cpuMs([child.pid!]);
  const from = await options.answered();
  await options.atWindow('from', from);
  await new Promise((r) => setTimeout(r, options.seconds * 1000 - 2 * window));
  const toCpu = await cpuMs([child.pid!]);
  const to = await options.answered();
  await options.atWindow('to', to);
  if ((await exited) !== 0) throw new Error(`wrk failed: ${stdout}`);
  const line = stdout.split('\n').find((l) => l.startsWith('{"requests"'));
  if (!line) throw new Error(`wrk printed no summary: ${stdout}`);
  const s = JSON.parse(line) as { requests: number; status: number; socket: number; us: number; p50: number; p99: number };
  const used = cpuUsed(fromCpu, toCpu);
  return {
    count: s.requests - s.status,
    errors: s.status + s.socket,
    statusErrors: s.status,
    latencies: [],
    percentiles: { 50: s.p50 / 1000, 99: s.p99 / 1000 },
    seconds: s.us / 1e6,
    clientCpu: used === undefined || to === from ? undefined : used / (to - from),
  };
}
