/**
 * npm run bench:jobs — job throughput under the resource governor.
 *
 * 1. Enqueue: JOBS no-op jobs through enqueueJob (history row + flagged graphile-worker job),
 *    8 clients at once.
 * 2. Drain under the governor: one worker (concurrency 3), then two workers (3 each, separate
 *    pools, one process) sharing the global limit of 3 running jobs.
 * 3. Ceiling: plain graphile-worker, no governor, no history, concurrency 3, same no-op task.
 * Prints jobs/s for each.
 */
import { EventEmitter } from 'node:events';
import pg from 'pg';
import winston from 'winston';
import { Logger as GraphileLogger, run, type WorkerEvents } from 'graphile-worker';
import { openDatabase } from '@inntak/postgres';
import { enqueueJob } from '@inntak/postgres/jobs';
import { startWorker } from '@inntak/worker/worker';
import { scratchDatabase } from './bench-database.js';
import { benchWorkerConfig } from './bench-worker.js';

const JOBS = Number(process.env.JOBS ?? 2000);

// error only: under contention the governor's lock waits show up as slow_query warnings.
const logger = winston.createLogger({ level: 'error', transports: [new winston.transports.Console()] });

async function count(pool: pg.Pool, query: string): Promise<number> {
  const { rows } = await pool.query<{ n: string }>(query);
  return Number(rows[0]!.n);
}

async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 20));
}

async function main(): Promise<void> {
  const scratch = await scratchDatabase('inntak_bench_jobs');
  const database = openDatabase({ connectionString: scratch.url, logger, max: 10 });
  const pool = database.pool;
  try {
    const enqueueAll = async (jobType: string) => {
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < JOBS) {
            next++;
            await enqueueJob(database.db, jobType, {});
          }
        }),
      );
      return JOBS / ((performance.now() - started) / 1000);
    };

    const config = benchWorkerConfig(scratch.url, { concurrency: 3, logLevel: 'warn' });
    const drain = async (workers: number) => {
      await pool.query("delete from job_queue where job_type = 'noop'");
      const enqueueRate = await enqueueAll('noop');
      const started = performance.now();
      const running = await Promise.all(Array.from({ length: workers }, () => startWorker(config, logger, { extraBodies: { noop: async () => {} } })));
      await waitUntil(async () => (await count(pool, "select count(*) as n from job_queue where job_type = 'noop' and status = 'completed'")) === JOBS);
      const rate = JOBS / ((performance.now() - started) / 1000);
      await Promise.all(running.map((w) => w.stop()));
      return { enqueueRate, rate };
    };

    const one = await drain(1);
    const two = await drain(2);

    // Ceiling: the same no-op task on plain graphile-worker.
    await pool.query(`select graphile_worker.add_jobs(array(select ('raw_noop', '{}'::json, null, null, null, null, null, null)::graphile_worker.job_spec from generate_series(1, ${JOBS})))`);
    let done = 0;
    const events: WorkerEvents = new EventEmitter();
    events.on('job:success', () => done++);
    const started = performance.now();
    const rawDatabase = openDatabase({ connectionString: scratch.url, logger, max: 6, asyncCommit: true });
    const runner = await run({ pgPool: rawDatabase.pool, concurrency: 3, pollInterval: 100, taskList: { raw_noop: async () => {} }, events, logger: new GraphileLogger(() => () => {}), noHandleSignals: true });
    await waitUntil(async () => done >= JOBS);
    const rawRate = JOBS / ((performance.now() - started) / 1000);
    await runner.stop();
    await rawDatabase.close();

    const f = (n: number) => n.toFixed(0);
    console.log(`jobs: ${JOBS} no-op jobs per run`);
    console.log(`enqueueJob (history + flagged job, 8 clients): ${f(one.enqueueRate)} jobs/s`);
    console.log(`drain under the governor, 1 worker x concurrency 3: ${f(one.rate)} jobs/s`);
    console.log(`drain under the governor, 2 workers x concurrency 3 (global limit 3): ${f(two.rate)} jobs/s`);
    console.log(`ceiling: plain graphile-worker, concurrency 3, async commit, no governor/history: ${f(rawRate)} jobs/s`);
  } finally {
    await database.close();
    await scratch.drop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
