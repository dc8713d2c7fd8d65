import { sql } from 'kysely';
import winston from 'winston';
import { uuidv7 } from '@inntak/core';
import { DEFAULT_SPEECH_LIMITS } from '@inntak/media';
import { startWorker } from '@inntak/worker/worker';
import { percentile } from './bench-database.js';
import { runWsBench } from './bench-ws.js';

// npm run bench:orchestration [-- BURST] — issue 27: events per second through matching and a
// 3-step script (a filter, two set_metadata), with 1, 100 and 10,000 orchestrations defined (one
// matches every insert, the rest never do), and /ws p50/p99 under that load: a burst of inserts
// from 4 writers while 50 /ws clients listen and a worker (concurrency 2) runs the scripts.
// Short on purpose: the machine is shared.
const USERS = 2;
const CLIENTS_PER_USER = 25;
const BURST = Number(process.argv[2] ?? 300);
const WRITERS = 4;
const COUNTS = [1, 100, 10_000];

const SCRIPT = `steps:
  - filter: { value: "{event.node.metadata.status}", equals: failed }
  - action: set_metadata
    with: { node_id: "{event.node.id}", key: sett, value: true }
  - action: set_metadata
    with: { node_id: "{event.node.id}", key: "kopi_{steps.2.output.key}", value: "{event.node.title}" }
`;

const logger = winston.createLogger({ level: 'error', transports: [new winston.transports.Console()] });

async function main(): Promise<void> {
  await runWsBench({ name: 'inntak_bench_orch', users: USERS, clientsPerUser: CLIENTS_PER_USER, maxQueue: 5000 }, async ({ database, databaseUrl, author, clients, deliveredToAll }) => {
    const { db } = database;
    const completed = async () => Number((await sql<{ n: string }>`select count(*) as n from orchestration_runs where status = 'completed'`.execute(db)).rows[0]!.n);
    const define = async (count: number) => {
      await db.deleteFrom('nodes').where('node_kind', '=', 'orchestration').execute();
      const t0 = performance.now();
      // One statement, the matching index's triggers on: one orchestration matching every content
      // node, the others waiting for kinds no node has.
      await sql`insert into nodes (id, node_kind, title, content, metadata, created_by)
        select gen_random_uuid(), 'orchestration', 'bench ' || i, ${SCRIPT},
               jsonb_build_object('trigger', jsonb_build_object('event', 'node.created', 'conditions',
                 jsonb_build_object('node_kind', case when i = 1 then 'content' else 'never-' || i end))),
               ${author}::uuid
        from generate_series(1, ${count}) i`.execute(db);
      return (performance.now() - t0) / 1000;
    };
    const burst = async (label: string) => {
      const completions: Array<Promise<{ latencies: number[]; last: number }>> = [];
      let next = 0;
      const before = await completed();
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: WRITERS }, async () => {
          while (next < BURST) {
            const key = `${label}-${next++}`;
            completions.push(deliveredToAll(key));
            await db
              .insertInto('nodes')
              .values({ id: uuidv7(), node_kind: 'content', title: key, visibility: 'open', metadata: JSON.stringify({ status: 'failed' }), created_by: author })
              .execute();
          }
        }),
      );
      const writeS = (performance.now() - t0) / 1000;
      const results = await Promise.all(completions);
      // Every insert is one run of the matching orchestration: wait for all of them to complete.
      const deadline = Date.now() + 300_000;
      while ((await completed()) - before < BURST && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      const doneS = (performance.now() - t0) / 1000;
      return { writeS, doneS, runs: (await completed()) - before, latencies: results.flatMap((r) => r.latencies).sort((a, b) => a - b) };
    };

    const worker = await startWorker(
      {
        databaseUrl,
        concurrency: 2,
        logLevel: 'error',
        once: false,
        pollIntervalMs: 100,
        deferMs: 20,
        heartbeatMs: 1000,
        workerStaleMs: 30_000,
        rulesCacheMs: 5000,
        liveRoomCacheMs: 10_000,
        shutdownGraceMs: 5000,
        storageDir: '/tmp',
        speech: DEFAULT_SPEECH_LIMITS,
        crontab: '',
        orchestrationHttpAllow: [],
        orchestrationCliAllow: [],
        orchestrationBudget: 100,
        ttsJobsPerPerson: 2,
      },
      logger,
    );
    try {
      console.log(`${clients} /ws clients as ${USERS} users; bursts of ${BURST} inserts from ${WRITERS} writers; a worker (concurrency 2) runs a 3-step script per insert`);
      const base = await burst('base');
      console.log(`  no orchestrations           inserts ${Math.round(BURST / base.writeS)}/s   /ws p50 ${percentile(base.latencies, 50)} ms   p99 ${percentile(base.latencies, 99)} ms`);
      for (const count of COUNTS) {
        const defineS = await define(count);
        const r = await burst(`o${count}`);
        console.log(
          `  ${String(count).padStart(6)} orchestrations       inserts ${Math.round(BURST / r.writeS)}/s   /ws p50 ${percentile(r.latencies, 50)} ms   p99 ${percentile(r.latencies, 99)} ms   ` +
            `runs completed ${r.runs}/${BURST}: ${(r.runs / r.doneS).toFixed(1)} events/s through matching + script   (defined in ${defineS.toFixed(1)} s)`,
        );
      }
    } finally {
      await worker.stop();
    }
  });
}

await main();
