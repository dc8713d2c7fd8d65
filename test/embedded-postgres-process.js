// Runs an embedded PostgreSQL for one test run in its own process, so that the library's exit
// hook never sits in jest's exit path. Prints the server URL as one JSON line when ready and
// stops (deleting its data) on SIGTERM.
import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { startEmbeddedPostgres } from '@inntak/postgres';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const dataDir = mkdtempSync(join(tmpdir(), 'inntak-test-pg-'));
chmodSync(dataDir, 0o755);
const server = await startEmbeddedPostgres({ dataDir, port: await freePort(), logger: quiet, database: 'postgres' });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);

let stopping = false;
async function stop() {
  if (stopping) return;
  stopping = true;
  await server.stop().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.on('disconnect', stop);
