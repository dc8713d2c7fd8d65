import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import pg from 'pg';
import winston from 'winston';
import { enqueueJob, getJob } from '@inntak/postgres/jobs';
import { openTestDatabase, type OpenTestDatabase } from '@inntak/postgres/testing';
import { loadConfig } from './config.js';
import { startWorker } from './worker.js';

// A real worker process's wiring (pool, graphile-worker runner with its LISTEN connection,
// heartbeat) through a database outage, as the realtime listener is tested.
let database: OpenTestDatabase;
let admin: pg.Client;
let name: string;
const lines: Array<{ level: string; message: string }> = [];

beforeAll(async () => {
  database = await openTestDatabase();
  name = new URL(database.url).pathname.slice(1);
  admin = new pg.Client({ connectionString: process.env.INNTAK_TEST_ADMIN_URL });
  await admin.connect();
});
afterAll(async () => {
  await admin.query(`alter database "${name}" allow_connections true`);
  await admin.end();
  await database.dispose();
});

async function workerConnections(): Promise<number> {
  // The test's own pool (database.db) is idle and counted too: it is at most its idle clients.
  const res = await admin.query<{ n: string }>("select count(*) as n from pg_stat_activity where datname = $1 and backend_type = 'client backend'", [name]);
  return Number(res.rows[0]!.n);
}

describe('the worker through a database outage', () => {
  it('a 1.5 s outage: connections stay within its pool, a few log lines a second, and jobs run again afterwards', async () => {
    const logger = winston.createLogger({
      level: 'debug',
      format: winston.format.json(),
      transports: [
        new winston.transports.Stream({
          stream: new Writable({
            write(chunk, _encoding, callback) {
              const { level, message } = JSON.parse(String(chunk)) as { level: string; message: string };
              lines.push({ level, message });
              callback();
            },
          }),
        }),
      ],
    });
    const config = { ...loadConfig({ DATABASE_URL: database.url, WORKER_CRONTAB: '', WORKER_CONCURRENCY: '3' }, []) };
    const worker = await startWorker(config, logger);
    const runJob = async () => {
      const id = await enqueueJob(database.db, 'access_repair', { edge_id: '00000000-0000-4000-8000-000000000000' });
      // Awaited, not timed: a worker that never runs it fails the test at the deadline.
      for (const end = Date.now() + 45_000; Date.now() < end && !['completed', 'failed'].includes((await getJob(database.db, id)).status); ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return (await getJob(database.db, id)).status;
    };
    try {
      // One job first: graphile-worker 0.17 caches its first task lookup, and a lookup that fails
      // (the database already down as the worker starts) stays failed until a restart.
      expect(await runJob()).toBe('completed');
      const before = lines.length;
      const blockedAt = Date.now();
      await admin.query(`alter database "${name}" allow_connections false`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
      // pg_terminate_backend only signals: on a busy machine the backends take a while to go.
      for (const end = Date.now() + 10_000; Date.now() < end && (await workerConnections()) > 0; ) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      let most = 0;
      for (const end = Date.now() + 1500; Date.now() < end; ) {
        most = Math.max(most, await workerConnections());
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      await admin.query(`alter database "${name}" allow_connections true`);
      const outageS = (Date.now() - blockedAt) / 1000;
      // Refused while blocked: a worker's connections could only show here by getting round it.
      expect(most).toBeLessThanOrEqual(config.concurrency + 3);
      const during = lines.slice(before).filter((l) => l.level === 'error' || l.level === 'warn');
      // One line per lost connection (about 12), then a few a second for failed polls, LISTEN
      // retries and heartbeats, not one per millisecond as a retry storm would log. Counted per
      // second of the outage as it really lasted: a busy machine stretches it.
      expect(during.length).toBeLessThan(20 + 10 * outageS);

      expect(await runJob()).toBe('completed');
      // Its pool (concurrency + 3) and the test's own pool (at most 10).
      expect(await workerConnections()).toBeLessThanOrEqual(config.concurrency + 3 + 10);
    } finally {
      await worker.stop();
    }
  });
});
