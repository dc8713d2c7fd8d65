import { Worker } from 'node:worker_threads';
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { sql } from 'kysely';
import { uuidv7 } from '@inntak/core';
import { openDatabase } from '@inntak/postgres';
import { createPerson } from '@inntak/postgres/graph';
import { startTestIssuer } from '@inntak/test-support';
import type { ApiServer } from '@inntak/api/dist/api-server.js';
import { createLogger } from '@inntak/api/dist/logger.js';
import { startBenchApi } from './bench-api.js';
import { percentile, scratchDatabase } from './bench-database.js';

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
  const started = Date.now();
  const scratch = await scratchDatabase(`inntak_bench_orch_${randomBytes(4).toString('hex')}`);
  const logger = createLogger('error');
  const database = openDatabase({ connectionString: scratch.url, logger, max: 12 });
  const issuer = await startTestIssuer();
  let api: ApiServer | undefined;
  let worker: Worker | undefined;
  try {
    api = await startBenchApi({ databaseUrl: scratch.url, database, logger, issuer, maxQueue: 5000 });
    const tokens: string[] = [];
    let author = '';
    for (let u = 0; u < USERS; u++) {
      const person = await createPerson(database.db, { subject: `bench-user-${u}` });
      author ||= person.id;
      tokens.push(await issuer.token(`bench-user-${u}`, { expiresIn: '10m' }));
    }
    worker = new Worker(new URL('./ws-clients.js', import.meta.url), { workerData: { url: api.url, tokens, clientsPerToken: CLIENTS_PER_USER } });
    const waiting = new Map<string, (result: { latencies: number[]; last: number }) => void>();
    await new Promise<void>((resolve, reject) => {
      worker!.on('message', (message: { kind: string; key?: string; latencies?: number[]; last?: number; message?: string }) => {
        if (message.kind === 'connected') resolve();
        else if (message.kind === 'error') reject(new Error(message.message));
        else if (message.kind === 'complete') waiting.get(message.key!)?.({ latencies: message.latencies!, last: message.last! });
      });
      worker!.on('error', reject);
    });
    const clients = USERS * CLIENTS_PER_USER;

    const burst = async (label: string) => {
      const completions: Array<Promise<{ latencies: number[]; last: number }>> = [];
      let next = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: WRITERS }, async () => {
          while (next < BURST) {
            const key = `${label}-${next++}`;
            completions.push(new Promise((resolve) => waiting.set(key, resolve)));
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
    console.log(`total ${((Date.now() - started) / 1000).toFixed(1)} s on ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    if (worker) {
      worker.postMessage({ kind: 'close' });
      await worker.terminate();
    }
    await api?.close();
    await database.close();
    await issuer.close();
    await scratch.drop();
  }
}

await main();
