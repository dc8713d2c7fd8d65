// A worker process with test job types: sleeps that record, in test_exec, that they are really
// executing, so a test can sample the running set from outside the governor's own bookkeeping.
import { sql } from 'kysely';
import { openDatabase } from '@inntak/postgres';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { startWorker } from '../worker.js';
import type { JobBody } from '../governed-task.js';

interface SleepPayload {
  ms: number;
  /** Sleep this long instead on the first attempt (the kill -9 test). */
  first_attempt_ms?: number;
  ignore_signal?: boolean;
  tag?: string;
}

const config = loadConfig();
const logger = createLogger(config.logLevel);
const probeDb = openDatabase({ connectionString: config.databaseUrl, logger, max: 3 });

const sleep: JobBody<SleepPayload> = async (payload, { signal, attempt }) => {
  const ms = attempt === 1 && payload.first_attempt_ms !== undefined ? payload.first_attempt_ms : payload.ms;
  const { rows } = await sql<{ id: string }>`insert into test_exec (pid, tag) values (${process.pid}, ${payload.tag ?? null}) returning id`.execute(probeDb.db);
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, ms);
      if (!payload.ignore_signal) {
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      }
    });
  } finally {
    await sql`delete from test_exec where id = ${rows[0]!.id}`.execute(probeDb.db);
  }
};

const worker = await startWorker(config, logger, {
  extraBodies: { sleep_light: sleep, sleep_medium: sleep, sleep_heavy: sleep, sleep_live: sleep } as Record<string, JobBody<never>>,
});
async function exit(): Promise<void> {
  await worker.stop();
  await probeDb.close();
  process.exit(0);
}
process.on('SIGTERM', () => void exit());
if (config.once) await worker.done.then(exit);
