import { loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startWorker } from './worker.js';

// Composition root of the worker process: config, logger, the worker; signals are ours.
const config = loadConfig();
const logger = createLogger(config.logLevel);
const worker = await startWorker(config, logger);

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
if (config.once) {
  await worker.done;
  await shutdown('--once: queue drained');
}
