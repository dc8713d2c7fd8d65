import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from '@inntak/test-support';

// A fleet as a deployment runs it (issue 38): N API processes from their build (`npm start`'s
// main.js), nothing shared but the settings a fleet shares, behind a round-robin proxy.

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface Line {
  level: string;
  message: string;
  [key: string]: unknown;
}

export interface ApiProcess {
  url: string;
  lines: Line[];
  child: ChildProcess;
}

/** Starts one API process with `env` and resolves once it listens. */
export async function startApiProcess(env: Record<string, string>): Promise<ApiProcess> {
  const port = await freePort();
  const base = { ...process.env };
  for (const name of ['OIDC_ISSUER', 'OIDC_AUDIENCE', 'INNTAK_DEV_ISSUER', 'HOST', 'BASE_URL', 'MEDIA_URL_SECRET', 'READ_DATABASE_URL']) delete base[name];
  const child = spawn(process.execPath, [MAIN], { env: { ...base, PORT: String(port), LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Line[] = [];
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the API exited with ${code}: ${JSON.stringify(lines.slice(-5))}`)));
    createInterface({ input: child.stdout! }).on('line', (text) => {
      try {
        lines.push(JSON.parse(text) as Line);
      } catch {
        return;
      }
      if (lines.at(-1)!.message === 'api listening') resolve();
    });
  });
  return { url: `http://127.0.0.1:${port}`, lines, child };
}

/** A load balancer without stickiness: each request to the next process in turn. */
export async function roundRobin(targets: string[]): Promise<{ url: string; close(): Promise<void> }> {
  let next = 0;
  const server: Server = createServer((req, res) => {
    const target = new URL(targets[next++ % targets.length]!);
    const upstream = httpRequest({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The name=value of a Set-Cookie header's cookie, if the answer set it. */
export function cookieFrom(res: Response, name: string): string | undefined {
  return res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith(`${name}=`));
}

const WORKER_MAIN = fileURLToPath(new URL('../../../worker/dist/main.js', import.meta.url));

/** Starts one worker process (its build) with `env` and resolves once it has started. */
export async function startWorkerProcess(env: Record<string, string>): Promise<{ child: ChildProcess; lines: Line[] }> {
  const base = { ...process.env };
  delete base.READ_DATABASE_URL;
  const child = spawn(process.execPath, [WORKER_MAIN], { env: { ...base, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: Line[] = [];
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the worker exited with ${code}: ${JSON.stringify(lines.slice(-5))}`)));
    createInterface({ input: child.stdout! }).on('line', (text) => {
      try {
        lines.push(JSON.parse(text) as Line);
      } catch {
        return;
      }
      if (lines.at(-1)!.message === 'worker started') resolve();
    });
  });
  return { child, lines };
}
