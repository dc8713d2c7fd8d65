import { connectionProblem, openDatabase } from '@inntak/postgres';
import { loadConfigOrExit, onStopSignals } from '@inntak/core';
import { loadConfig, type WorkerConfig } from './config.js';
import { createLogger } from './logger.js';
import { startWorker, type RunningWorker } from './worker.js';

// Composition root of the worker process: config, logger, the worker; signals are ours.
// A setting or a database it cannot work with ends the process with one line naming it.

/** How long an interrupted start-up may take to undo what it began before the process just exits. */
const STARTUP_ABORT_GRACE_MS = 1000;

// Signal handlers first: a signal at any point of start-up stops the process (issue 22), rather
// than waiting for a start-up that may never finish.
let worker: RunningWorker | undefined;
let stopping = false;
const startup = new AbortController();
const onSignal = (signal: string) => (worker ? void shutdown(signal) : abortStartup(signal));
onStopSignals(onSignal);

const config: WorkerConfig = loadConfigOrExit(() => loadConfig(), () => createLogger('error'));
const logger = createLogger(config.logLevel);

function abortStartup(signal: string): void {
  if (startup.signal.aborted) return;
  logger.info('worker stopping during start-up', { signal });
  startup.abort(new Error(`stopped by ${signal} during start-up`));
  // What start-up began is undone if it can be; a step that waits on nothing (a database that
  // never answers) is not waited for.
  setTimeout(() => process.exit(0), STARTUP_ABORT_GRACE_MS);
}

const probe = openDatabase({ connectionString: config.databaseUrl, logger, max: 1 });
try {
  await probe.pool.query('select 1');
} catch (err) {
  if (startup.signal.aborted) process.exit(0);
  logger.error(`DATABASE_URL: ${connectionProblem(err)}`, { tag: 'startup' });
  process.exit(1);
} finally {
  await probe.close().catch(() => {});
}
try {
  worker = await startWorker(config, logger, {}, startup.signal);
} catch (err) {
  if (startup.signal.aborted) process.exit(0);
  const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  logger.error(`the worker could not start; is DATABASE_URL's database up and migrated? (${reason})`, { tag: 'startup' });
  process.exit(1);
}

async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info('worker stopping', { signal });
  await worker!.stop();
  logger.info('worker stopped');
  process.exit(0);
}
if (config.once) {
  await worker.done;
  await shutdown('--once: queue drained');
}
