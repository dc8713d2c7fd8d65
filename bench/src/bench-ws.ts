import { Worker } from 'node:worker_threads';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { openDatabase, type DatabaseHandle } from '@inntak/postgres';
import { startTestIssuer } from '@inntak/test-support';
import type { ApiServer } from '@inntak/api/dist/api-server.js';
import { createLogger } from '@inntak/api/dist/logger.js';
import { startBenchApi } from './bench-api.js';
import { scratchDatabase } from './bench-database.js';
import { createPerson } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

/** What a /ws benchmark measures against, once its clients are connected. */
export interface WsBench {
  database: DatabaseHandle;
  /** The scratch database's URL (for a worker of its own). */
  databaseUrl: string;
  api: ApiServer;
  /** The first user: the creator of the nodes the benchmark writes. */
  author: string;
  clients: number;
  connectMs: number;
  /** Resolves once every client has the change titled `key`, with the latencies they saw. */
  deliveredToAll(key: string): Promise<{ latencies: number[]; last: number }>;
}

/**
 * The setup bench:ws and bench:orchestration share: a scratch database, the local issuer, the
 * API in this process, `users` people with `clientsPerUser` /ws clients each in a worker thread
 * (ws-clients.ts); runs `body`, prints the total time and load, and takes everything down.
 */
export async function runWsBench(
  options: { name: string; users: number; clientsPerUser: number; maxQueue: number },
  body: (bench: WsBench) => Promise<void>,
): Promise<void> {
  const started = Date.now();
  const scratch = await scratchDatabase(`${options.name}_${randomBytes(4).toString('hex')}`);
  // Slow-query warnings would flood the output: under load every query waits for the fan-out.
  const logger = createLogger('error');
  const database = openDatabase({ connectionString: scratch.url, logger, max: 12 });
  const issuer = await startTestIssuer();
  let api: ApiServer | undefined;
  let worker: Worker | undefined;
  try {
    api = await startBenchApi({ databaseUrl: scratch.url, database, logger, issuer, maxQueue: options.maxQueue });
    const tokens: string[] = [];
    let author = '';
    for (let u = 0; u < options.users; u++) {
      const person = await createPerson(storesOn(database.db).graph, { subject: `bench-user-${u}` });
      author ||= person.id;
      tokens.push(await issuer.token(`bench-user-${u}`, { expiresIn: '10m' }));
    }

    const clients = await connectWsClients(api.url, tokens, options.clientsPerUser);
    worker = clients.worker;
    await body({
      database,
      databaseUrl: scratch.url,
      api,
      author,
      clients: options.users * options.clientsPerUser,
      connectMs: clients.connectMs,
      deliveredToAll: clients.deliveredToAll,
    });
    console.log(`total ${((Date.now() - started) / 1000).toFixed(1)} s on ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    if (worker) await closeWsClients(worker);
    await api?.close();
    await database.close();
    await issuer.close();
    await scratch.drop();
  }
}

/**
 * `clientsPerToken` /ws clients per token, connected from a worker thread (ws-clients.ts) so
 * their JavaScript does not share the caller's event loop; resolves once all have their
 * initial_sync. `deliveredToAll(key)` resolves once every client has the node titled `key`.
 */
export async function connectWsClients(
  url: string,
  tokens: string[],
  clientsPerToken: number,
): Promise<{ worker: Worker; connectMs: number; deliveredToAll(key: string): Promise<{ latencies: number[]; last: number }> }> {
  const connectStart = Date.now();
  const worker = new Worker(new URL('./ws-clients.js', import.meta.url), { workerData: { url, tokens, clientsPerToken } });
  const waiting = new Map<string, (result: { latencies: number[]; last: number }) => void>();
  try {
    await new Promise<void>((resolve, reject) => {
      worker.on('message', (message: { kind: string; key?: string; latencies?: number[]; last?: number; connected?: number; message?: string }) => {
        if (message.kind === 'connected') resolve();
        else if (message.kind === 'error') reject(new Error(message.message));
        else if (message.kind === 'complete') waiting.get(message.key!)?.({ latencies: message.latencies!, last: message.last! });
      });
      worker.on('error', reject);
    });
  } catch (err) {
    await closeWsClients(worker);
    throw err;
  }
  return { worker, connectMs: Date.now() - connectStart, deliveredToAll: (key) => new Promise((resolve) => waiting.set(key, resolve)) };
}

export async function closeWsClients(worker: Worker): Promise<void> {
  worker.postMessage({ kind: 'close' });
  await worker.terminate();
}
