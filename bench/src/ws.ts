import { uuidv7 } from '@inntak/core';
import { percentile } from './bench-database.js';
import { runWsBench } from './bench-ws.js';

// npm run bench:ws — 1,000 connected /ws clients across 10 users, changes visible to all:
// delivery latency (trigger time → client receipt) p50/p99, and deliveries per second sustained.
const USERS = 10;
const CLIENTS_PER_USER = 100;
const LATENCY_CHANGES = 100;
const THROUGHPUT_CHANGES = 200;
const THROUGHPUT_CONCURRENCY = 8;

async function main(): Promise<void> {
  await runWsBench({ name: 'inntak_bench_ws', users: USERS, clientsPerUser: CLIENTS_PER_USER, maxQueue: 1000 }, async ({ database, api, author, clients, connectMs, deliveredToAll }) => {
    const { hub } = api;
    console.log(`connected ${clients} clients as ${USERS} users in ${connectMs} ms`);

    const change = (key: string) =>
      database.db
        .insertInto('nodes')
        .values({ id: uuidv7(), node_kind: 'content', title: key, content: 'bench', visibility: 'open', metadata: '{}', created_by: author })
        .execute();

    // Latency: one change at a time, each awaited at every client.
    const latencies: number[] = [];
    const endToEnd: number[] = [];
    for (let i = 0; i < LATENCY_CHANGES; i++) {
      const key = `latency-${i}`;
      const done = deliveredToAll(key);
      const t0 = Date.now();
      await change(key);
      const result = await done;
      latencies.push(...result.latencies);
      endToEnd.push(result.last - t0);
    }
    latencies.sort((a, b) => a - b);
    endToEnd.sort((a, b) => a - b);
    const quiet = hub.stats();

    // Throughput: changes as fast as the database takes them, several writers at once.
    const throughputStart = Date.now();
    const completions: Array<Promise<{ latencies: number[]; last: number }>> = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: THROUGHPUT_CONCURRENCY }, async () => {
        while (next < THROUGHPUT_CHANGES) {
          const key = `throughput-${next++}`;
          completions.push(deliveredToAll(key));
          await change(key);
        }
      }),
    );
    const results = await Promise.all(completions);
    const elapsedS = (Math.max(...results.map((r) => r.last)) - throughputStart) / 1000;
    const loaded = results.flatMap((r) => r.latencies).sort((a, b) => a - b);

    console.log(`latency, ${LATENCY_CHANGES} changes one at a time, each to ${clients} clients (${latencies.length} deliveries):`);
    console.log(`  delivery (trigger → client)   p50 ${percentile(latencies, 50)} ms   p99 ${percentile(latencies, 99)} ms   max ${latencies[latencies.length - 1]} ms`);
    console.log(`  last client (insert → all)    p50 ${percentile(endToEnd, 50)} ms   p99 ${percentile(endToEnd, 99)} ms`);
    console.log(
      `  server per burst: read rows mean ${(quiet.readMsTotal / quiet.bursts).toFixed(1)} ms, read + fan-out mean ${(quiet.burstMsTotal / quiet.bursts).toFixed(1)} ms, max ${quiet.burstMsMax.toFixed(1)} ms`,
    );
    console.log(`throughput, ${THROUGHPUT_CHANGES} changes from ${THROUGHPUT_CONCURRENCY} writers, each to ${clients} clients:`);
    console.log(`  ${Math.round(THROUGHPUT_CHANGES / elapsedS)} changes/s → ${Math.round((THROUGHPUT_CHANGES * clients) / elapsedS)} events/s delivered, sustained over ${elapsedS.toFixed(2)} s`);
    console.log(`  delivery under load           p50 ${percentile(loaded, 50)} ms   p99 ${percentile(loaded, 99)} ms`);
    const all = hub.stats();
    const bursts = all.bursts - quiet.bursts;
    console.log(`  server: ${bursts} bursts for ${all.changes - quiet.changes} changes, mean ${((all.burstMsTotal - quiet.burstMsTotal) / bursts).toFixed(1)} ms each; overflows ${all.overflows}`);
  });
}

await main();
