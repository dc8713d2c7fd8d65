import { sql } from 'kysely';
import winston from 'winston';
import { startWorker } from '@inntak/worker/worker';
import { percentile } from './bench-database.js';
import { benchWorkerConfig } from './bench-worker.js';
import { runWsBench } from './bench-ws.js';
import { createCollection, createNode } from '@inntak/access';
import { storesOn } from '@inntak/postgres/testing';

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
    // Nodes made as the API makes them (access rows in a collection of the author's): the script's
    // set_metadata steps run as the orchestration's creator, who needs member on them.
    const collection = (await createCollection(storesOn(db).graph, { title: 'Bench', ownerId: author })).id;
    const actor = { personId: author, isAdmin: false };
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
    const burst = async (label: string, expectRuns: boolean) => {
      const completions: Array<Promise<{ latencies: number[]; last: number }>> = [];
      let next = 0;
      const before = await completed();
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: WRITERS }, async () => {
          while (next < BURST) {
            const key = `${label}-${next++}`;
            completions.push(deliveredToAll(key));
            await createNode(storesOn(db).graph, actor, { node_kind: 'content', title: key, visibility: 'open', metadata: { status: 'failed' }, collection_id: collection });
          }
        }),
      );
      const writeS = (performance.now() - t0) / 1000;
      const results = await Promise.all(completions);
      // Every insert is one run of the matching orchestration: wait for all of them to complete.
      const deadline = Date.now() + 120_000;
      while (expectRuns && (await completed()) - before < BURST && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
      if (expectRuns && Date.now() >= deadline) {
        const states = await sql<{ status: string; n: string }>`select status, count(*) as n from orchestration_runs group by status`.execute(db);
        const errors = await sql<{ error: string }>`select distinct error from orchestration_log where error is not null limit 3`.execute(db);
        console.error('runs not completed within 120 s:', JSON.stringify(states.rows), JSON.stringify(errors.rows));
      }
      const doneS = (performance.now() - t0) / 1000;
      return { writeS, doneS, runs: (await completed()) - before, latencies: results.flatMap((r) => r.latencies).sort((a, b) => a - b) };
    };

    const worker = await startWorker(
      benchWorkerConfig(databaseUrl, { concurrency: 2, logLevel: 'error' }),
      logger,
    );
    try {
      console.log(`${clients} /ws clients as ${USERS} users; bursts of ${BURST} inserts from ${WRITERS} writers; a worker (concurrency 2) runs a 3-step script per insert`);
      const base = await burst('base', false);
      console.log(`  no orchestrations           inserts ${Math.round(BURST / base.writeS)}/s   /ws p50 ${percentile(base.latencies, 50)} ms   p99 ${percentile(base.latencies, 99)} ms`);
      for (const count of COUNTS) {
        const defineS = await define(count);
        // The bulk insert's row notifications reach the API's realtime hub too: measured while it
        // works through 10,000 of them, /ws p50 was 9 s. Wait that backlog out (docs/orchestration.md).
        if (count >= 1000) await new Promise((r) => setTimeout(r, 25_000));
        const r = await burst(`o${count}`, true);
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
