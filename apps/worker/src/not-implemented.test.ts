import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'kysely';
import { Logger as GraphileLogger, runOnce } from 'graphile-worker';
import { enqueueJob, getJob, newWorkerProcess, openTestDatabase, PostgresLiveRoomStatus, type OpenTestDatabase } from '@inntak/postgres';
import { Governor } from './governor.js';
import { StatfsDiskProbe } from './statfs-disk-probe.js';
import { createTaskList, jobBodies } from './task-list.js';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };
let h: OpenTestDatabase;
beforeAll(async () => {
  h = await openTestDatabase();
});
afterAll(() => h.dispose());

describe('job types whose work comes later', () => {
  it('orchestrate and tts_generate fail visibly in the history, at once, not as silent successes', async () => {
    const orchestrate = await enqueueJob(h.db, 'orchestrate', { script_id: 's', event: {} });
    const tts = await enqueueJob(h.db, 'tts_generate', { node_id: 'n', text: 'hei' });
    const worker = newWorkerProcess();
    const bodies = jobBodies(h.db);
    const governor = new Governor({ db: h.db, pool: h.pool, logger: quiet, liveRooms: new PostgresLiveRoomStatus(h.db), liveRoomCacheMs: 0, rulesCacheMs: 0, jobTypes: Object.keys(bodies) });
    const taskList = createTaskList(
      bodies,
      { db: h.db, worker, governor, logger: quiet, deferMs: 10 },
      { db: h.db, worker, logger: quiet, probe: new StatfsDiskProbe(), storageDir: '/tmp' },
    );
    await runOnce({ pgPool: h.pool, taskList, forbiddenFlags: governor.forbiddenFlags, logger: new GraphileLogger(() => () => {}) });

    expect(await getJob(h.db, orchestrate)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'orchestrate is not implemented yet' });
    expect(await getJob(h.db, tts)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'tts_generate is not implemented yet' });
    const left = await sql<{ n: string }>`select count(*) as n from graphile_worker.jobs`.execute(h.db);
    expect(left.rows[0]!.n).toBe('0');
  });
});
