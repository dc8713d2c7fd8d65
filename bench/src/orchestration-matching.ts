import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { sql } from 'kysely';
import { OPERATOR, createCollection, createPerson, grantAccess } from '@inntak/access';
import { openDatabase } from '@inntak/postgres';
import { insertNeverMatchingOrchestrations, storesOn } from '@inntak/postgres/testing';
import { startTestIssuer } from '@inntak/test-support';
import type { ApiServer } from '@inntak/api/dist/api-server.js';
import { createLogger } from '@inntak/api/dist/logger.js';
import { startBenchApi } from './bench-api.js';
import { percentile, scratchDatabase } from './bench-database.js';
import { createWebhook } from '@inntak/intake';

// npm run bench:orchestration-matching [-- COUNT SECONDS] — issue 22, finding 8: what a stranger's
// many never-matching orchestrations cost everyone's writes. Intake p50/p99 (one keep-alive
// connection POSTing a push to a hidden collection) with none, then with COUNT (default 10,000)
// bulk-inserted in one statement with the triggers on (timed), in alternating rounds; and the
// matching of one intake event with 011's query (every orchestration tested) against 017's (index
// probes), side by side in the same database.
const COUNT = Number(process.argv[2] ?? 10_000);
const SECONDS = Number(process.argv[3] ?? 5);
const ROUNDS = 2;
const MATCH_CALLS = 200;
const SETTLE_MS = 20_000;

const PUSH = JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'acme/widget' }, pusher: { name: 'kari' }, commits: [] });

async function main(): Promise<void> {
  const started = Date.now();
  const scratch = await scratchDatabase(`inntak_bench_match_${randomBytes(4).toString('hex')}`);
  const logger = createLogger('error');
  const database = openDatabase({ connectionString: scratch.url, logger, max: 8 });
  const issuer = await startTestIssuer();
  let api: ApiServer | undefined;
  try {
    api = await startBenchApi({ databaseUrl: scratch.url, database, logger, issuer, maxQueue: 5000 });
    const { db } = database;
    const owner = await createPerson(storesOn(db).graph, { subject: 'owner' });
    const collection = await createCollection(storesOn(db).graph, { title: 'Varsler', ownerId: owner.id });
    for (let i = 0; i < 4; i++) {
      const reader = await createPerson(storesOn(db).graph, { subject: `reader-${i}` });
      await grantAccess(storesOn(db).graph, OPERATOR, { subject_id: reader.id, object_id: collection.id, access: 'reader' });
    }
    const webhook = await createWebhook(storesOn(db).webhookAdmin, OPERATOR, { collectionId: collection.id, templateId: 'forge-push', title: null });
    const url = `${api.url}/api/webhook/${webhook.token}`;
    const stranger = await createPerson(storesOn(db).graph, { subject: 'stranger' });
    const theirs = await createCollection(storesOn(db).graph, { title: 'Fremmed', ownerId: stranger.id });

    // 011's matching, as it was, beside 017's: the same rows, the old query.
    const old = /create function inntak_matching_orchestrations[\s\S]*?\n\$\$;/.exec(readFileSync(new URL('../../db/migrations/011.do.orchestration.sql', import.meta.url), 'utf8'))![0];
    await sql.raw(old.replace('inntak_matching_orchestrations', 'bench_matching_011')).execute(db);

    const intake = async () => {
      const latencies: number[] = [];
      const deadline = performance.now() + SECONDS * 1000;
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'push' }, body: PUSH });
        await res.arrayBuffer();
        if (res.status !== 200 && res.status !== 201) throw new Error(`intake answered ${res.status}`);
        latencies.push(performance.now() - t0);
      }
      return latencies.sort((a, b) => a - b);
    };
    const bulk = async () => {
      const t0 = performance.now();
      await insertNeverMatchingOrchestrations(db, stranger.id, theirs.id, COUNT);
      return (performance.now() - t0) / 1000;
    };
    const matching = async (fn: 'inntak_matching_orchestrations' | 'bench_matching_011') => {
      const latest = await db.selectFrom('nodes').select('id').where('node_kind', '=', 'content').orderBy('created_at', 'desc').limit(1).executeTakeFirstOrThrow();
      const t0 = performance.now();
      for (let i = 0; i < MATCH_CALLS; i++) await sql`select count(*) from ${sql.raw(fn)}('node.created', ${latest.id}::uuid)`.execute(db);
      return (performance.now() - t0) / MATCH_CALLS;
    };
    const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const line = (name: string, l: number[]) => `  ${name.padEnd(42)} intake p50 ${percentile(l, 50).toFixed(1)} ms  p99 ${percentile(l, 99).toFixed(1)} ms  (${l.length} requests)`;

    console.log(`one connection, ${SECONDS} s per measurement; ${COUNT} orchestrations of one stranger, none matching`);
    await intake(); // warm-up
    for (let round = 1; round <= ROUNDS; round++) {
      const none = await intake();
      const noneMatch = { new: await matching('inntak_matching_orchestrations'), old: await matching('bench_matching_011') };
      const bulkS = await bulk();
      await sql`analyze`.execute(db);
      // The bulk insert's 27,000 row notifications reach the API's realtime hub too: let it
      // catch up, so what is measured is the writes, not that backlog.
      await settle();
      const many = await intake();
      const manyMatch = { new: await matching('inntak_matching_orchestrations'), old: await matching('bench_matching_011') };
      await db.deleteFrom('nodes').where('node_kind', '=', 'orchestration').execute();
      await settle();
      const change = (percentile(many, 50) / percentile(none, 50) - 1) * 100;
      console.log(`round ${round}:`);
      console.log(line('no orchestrations', none));
      console.log(line(`${COUNT} never-matching orchestrations`, many) + `  (p50 ${change >= 0 ? '+' : ''}${change.toFixed(0)} %)`);
      console.log(`  bulk insert of ${COUNT} orchestrations (one statement, triggers on): ${bulkS.toFixed(2)} s`);
      console.log(
        `  matching one intake event: 017 ${noneMatch.new.toFixed(2)} -> ${manyMatch.new.toFixed(2)} ms; 011's query ${noneMatch.old.toFixed(2)} -> ${manyMatch.old.toFixed(2)} ms`,
      );
    }
    console.log(`total ${((Date.now() - started) / 1000).toFixed(1)} s on ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    await api?.close();
    await database.close();
    await issuer.close();
    await scratch.drop();
  }
}

await main();
