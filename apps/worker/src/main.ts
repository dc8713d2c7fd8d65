import { run } from 'graphile-worker';
import { openDatabase } from '@inntak/postgres';
import { loadConfig } from './config.js';
import { createLogger, workerLogger } from './logger.js';
import { createTaskList } from './task-list.js';

// Composition root of the worker process.
const config = loadConfig();
const logger = createLogger(config.logLevel);
const database = openDatabase({ connectionString: config.databaseUrl, logger, max: config.concurrency + 2 });

const runner = await run({
  pgPool: database.pool,
  concurrency: config.concurrency,
  taskList: createTaskList(database.db),
  logger: workerLogger(logger),
  // Signals are ours: stop the runner (it finishes or releases its jobs), then close the pool.
  noHandleSignals: true,
});
logger.info('worker started', { concurrency: config.concurrency });

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info('worker stopping', { signal });
  await runner.stop();
  await database.close();
  logger.info('worker stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
