/**
 * Runs the embedded PostgreSQL in a process of its own, so that whoever needs it (`npm start`,
 * the test run) decides when it stops: after its clients have drained, not when the library's
 * exit hook sees the first signal. Prints `{"url": ...}` when ready (`{"error": ...}` if it cannot start); stops on SIGTERM or when
 * its parent goes away.
 *
 * argv: <dataDir> <port> <database> [--ephemeral]   (--ephemeral deletes dataDir after stop)
 */
import { rmSync } from 'node:fs';
import { startEmbeddedPostgres } from './embedded-server.js';

const [dataDir, port, database] = process.argv.slice(2);
const ephemeral = process.argv.includes('--ephemeral');
const stderrLogger = {
  error: (m: string) => process.stderr.write(`${m}\n`),
  warn: (m: string) => process.stderr.write(`${m}\n`),
  info: () => {},
  debug: () => {},
};

let server: Awaited<ReturnType<typeof startEmbeddedPostgres>>;
try {
  server = await startEmbeddedPostgres({ dataDir: dataDir!, port: Number(port), database, logger: stderrLogger, ephemeral });
} catch (err) {
  // initdb's or postgres' own "error:"/"FATAL:" line says why; the rest is its progress chatter.
  const message = err instanceof Error ? err.message : String(err);
  const reason = message.split('\n').find((line) => /\b(error|FATAL):/.test(line)) ?? message.split('\n')[0];
  process.stdout.write(`${JSON.stringify({ error: reason!.trim() })}\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);

let stopping = false;
async function stop(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await server.stop().catch(() => {});
  if (ephemeral) rmSync(dataDir!, { recursive: true, force: true });
  process.exit(0);
}
process.on('SIGTERM', () => void stop());
// Ctrl-C reaches the whole process group; the parent decides when we stop.
process.on('SIGINT', () => {});
process.on('disconnect', () => void stop());
