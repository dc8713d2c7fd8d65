import { openDatabase } from '@inntak/postgres';
import { loadConfig, type WorkerConfig } from './config.js';
import { createLogger } from './logger.js';
import { startWorker, type RunningWorker } from './worker.js';

// Composition root of the worker process: config, logger, the worker; signals are ours.
// A setting or a database it cannot work with ends the process with one line naming it.
let config: WorkerConfig;
try {
  config = loadConfig();
} catch (err) {
  createLogger('error').error((err as Error).message, { tag: 'config' });
  process.exit(1);
}
const logger = createLogger(config.logLevel);
const probe = openDatabase({ connectionString: config.databaseUrl, logger, max: 1 });
try {
  await probe.pool.query('select 1');
} catch (err) {
  logger.error(`DATABASE_URL: the database does not answer (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { tag: 'startup' });
  process.exit(1);
} finally {
  await probe.close().catch(() => {});
}
let worker: RunningWorker;
try {
  worker = await startWorker(config, logger);
} catch (err) {
  const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  logger.error(`the worker could not start; is DATABASE_URL's database up and migrated? (${reason})`, { tag: 'startup' });
  process.exit(1);
}

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info('worker stopping', { signal });
  await worker.stop();
  logger.info('worker stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
// Started by `inntak start` with an IPC channel: when that parent goes away (even SIGKILLed), so do we.
if (process.send) process.on('disconnect', () => void shutdown('parent exited'));
if (config.once) {
  await worker.done;
  await shutdown('--once: queue drained');
}
