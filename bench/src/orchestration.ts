import { sql } from 'kysely';
import { uuidv7 } from '@inntak/core';
import { percentile } from './bench-database.js';
import { runWsBench } from './bench-ws.js';

// npm run bench:orchestration — a burst of 1,000 node inserts while /ws clients listen, without
// orchestrations and with ten (one matching every insert, nine whose conditions never hold):
// events matched per second (matching runs in the writers' commits) and what it adds to /ws
// delivery (trigger time → client receipt) p50/p99. Rounds alternate to spread machine noise.
const USERS = 2;
const CLIENTS_PER_USER = 25;
const BURST = 1000;
const WRITERS = 8;
const ROUNDS = 2;

const SCRIPT = 'steps:\n  - action: set_metadata\n    with: { node_id: "{event.node.id}", key: sett, value: true }\n';

async function main(): Promise<void> {
  await runWsBench({ name: 'inntak_bench_orch', users: USERS, clientsPerUser: CLIENTS_PER_USER, maxQueue: 5000 }, async ({ database, author, clients, deliveredToAll }) => {
    const burst = async (label: string) => {
      const completions: Array<Promise<{ latencies: number[]; last: number }>> = [];
      let next = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: WRITERS }, async () => {
          while (next < BURST) {
            const key = `${label}-${next++}`;
            completions.push(deliveredToAll(key));
            await database.db
              .insertInto('nodes')
              .values({ id: uuidv7(), node_kind: 'content', title: key, visibility: 'open', metadata: '{}', created_by: author })
              .execute();
          }
        }),
      );
      const writeS = (performance.now() - t0) / 1000;
      const results = await Promise.all(completions);
      return { writeS, latencies: results.flatMap((r) => r.latencies).sort((a, b) => a - b) };
    };
    const matched = async () => Number((await sql<{ n: string }>`select count(*) as n from orchestration_runs`.execute(database.db)).rows[0]!.n);

    const addOrchestration = (conditions: Record<string, string>) =>
      database.db
        .insertInto('nodes')
        .values({ id: uuidv7(), node_kind: 'orchestration', title: 'bench', content: SCRIPT, metadata: JSON.stringify({ trigger: { event: 'node.created', conditions } }), created_by: author })
        .returning('id')
        .executeTakeFirstOrThrow();
    const orchestrations: string[] = [];
    const setUp = async () => {
      orchestrations.push((await addOrchestration({ node_kind: 'content' })).id);
      for (let i = 0; i < 3; i++) {
        orchestrations.push((await addOrchestration({ node_kind: `kind-${i}` })).id);
        orchestrations.push((await addOrchestration({ node_kind: 'content', has_trait: `trait-${i}` })).id);
        orchestrations.push((await addOrchestration({ node_kind: 'content', has_tag: `tag-${i}` })).id);
      }
    };
    const tearDown = async () => {
      await database.db.deleteFrom('nodes').where('id', 'in', orchestrations.splice(0)).execute();
    };

    console.log(`${clients} /ws clients as ${USERS} users; bursts of ${BURST} inserts from ${WRITERS} writers; no worker running (jobs only queue)`);
    for (let round = 1; round <= ROUNDS; round++) {
      const base = await burst(`base-${round}`);
      await setUp();
      const before = await matched();
      const withO = await burst(`orch-${round}`);
      const count = (await matched()) - before;
      // The matching alone, as one query over the burst's nodes (what each commit runs per row).
      const m0 = performance.now();
      const again = await sql<{ n: string }>`select count(*) as n from nodes n cross join lateral inntak_matching_orchestrations('node.created', n.id) m
        where n.node_kind = 'content' and n.title like ${`orch-${round}-%`}`.execute(database.db);
      const matchS = (performance.now() - m0) / 1000;
      await tearDown();
      const line = (name: string, r: { writeS: number; latencies: number[] }) =>
        `  ${name.padEnd(28)} inserts ${Math.round(BURST / r.writeS)}/s   /ws p50 ${percentile(r.latencies, 50)} ms   p99 ${percentile(r.latencies, 99)} ms`;
      console.log(`round ${round}:`);
      console.log(line('no orchestrations', base));
      console.log(line('10 orchestrations (1 match)', withO));
      console.log(`  matched ${count} events (${count === BURST ? 'one job each' : `expected ${BURST}`}) at the writers' pace, ${Math.round(count / withO.writeS)} events/s; /ws p99 added ${percentile(withO.latencies, 99) - percentile(base.latencies, 99)} ms`);
      console.log(`  the matching alone: ${BURST} events against 10 orchestrations in ${(matchS * 1000).toFixed(0)} ms = ${Math.round(BURST / matchS)} events matched/s (${again.rows[0]!.n} matches)`);
    }
  });
}

await main();
