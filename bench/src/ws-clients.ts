import { parentPort, workerData } from 'node:worker_threads';
import { io } from 'socket.io-client';

/**
 * The benchmark's clients, in a worker thread so they do not share the API's event loop: it
 * connects them all, then reports, per change, how many clients got it and their latencies.
 */
interface Input {
  url: string;
  tokens: string[];
  clientsPerToken: number;
}
interface Received {
  count: number;
  latencies: number[];
  last: number;
}

const { url, tokens, clientsPerToken } = workerData as Input;
const total = tokens.length * clientsPerToken;
const received = new Map<string, Received>();
const sockets: ReturnType<typeof io>[] = [];

function onCreated(event: { row: { title: string }; at: string }): void {
  const now = Date.now();
  const key = event.row.title;
  let entry = received.get(key);
  if (!entry) received.set(key, (entry = { count: 0, latencies: [], last: 0 }));
  entry.count += 1;
  entry.latencies.push(now - Date.parse(event.at));
  entry.last = now;
  if (entry.count === total) {
    parentPort!.postMessage({ kind: 'complete', key, latencies: entry.latencies, last: entry.last });
    received.delete(key);
  }
}

async function connectAll(): Promise<void> {
  let connected = 0;
  const batch = 100;
  for (let i = 0; i < total; i += batch) {
    await Promise.all(
      Array.from({ length: Math.min(batch, total - i) }, (_, j) => {
        const socket = io(url, { path: '/ws', transports: ['websocket'], reconnection: false, forceNew: true, auth: { token: tokens[(i + j) % tokens.length] } });
        sockets.push(socket);
        socket.on('node.created', onCreated);
        return new Promise<void>((resolve, reject) => {
          socket.once('initial_sync', () => {
            connected += 1;
            resolve();
          });
          socket.once('connect_error', reject);
        });
      }),
    );
  }
  parentPort!.postMessage({ kind: 'connected', connected });
}

parentPort!.on('message', (message: { kind: string }) => {
  if (message.kind === 'close') {
    for (const socket of sockets) socket.close();
    parentPort!.postMessage({ kind: 'closed' });
  }
});

connectAll().catch((error: Error) => parentPort!.postMessage({ kind: 'error', message: error.message }));
