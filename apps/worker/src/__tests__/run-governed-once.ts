import { tmpdir } from 'node:os';
import { Logger as GraphileLogger, runOnce } from 'graphile-worker';
import { LocalFileStore } from '@inntak/files';
import { type DatabaseHandle } from '@inntak/postgres';
import { newWorkerProcess, postgresJobRuns, PostgresLiveRoomStatus } from '@inntak/postgres/jobs';
import { PostgresOrchestrationStore } from '@inntak/postgres/orchestration';
import { Governor } from '../governor.js';
import { StatfsDiskProbe } from '../statfs-disk-probe.js';
import { createTaskList, jobBodies, type MediaAdapters, type OrchestrationAllowLists } from '../task-list.js';
import { postgresMediaDeps } from '../worker.js';
import { EspeakSpeechSynthesizer } from '../espeak-speech-synthesizer.js';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

/** Runs every queued job once through the real governed task list, as a worker would. */
export async function runGovernedOnce(
  h: DatabaseHandle,
  allow?: OrchestrationAllowLists,
  adapters: MediaAdapters = { files: new LocalFileStore(tmpdir()), synthesizer: new EspeakSpeechSynthesizer() },
): Promise<void> {
  const worker = newWorkerProcess();
  const media = postgresMediaDeps(h.db, adapters);
  const bodies = jobBodies(h.db, media, { httpAllow: [], cliAllow: [], ...allow, store: new PostgresOrchestrationStore(h.db) });
  const governor = new Governor({ db: h.db, pool: h.pool, logger: quiet, liveRooms: new PostgresLiveRoomStatus(h.db), liveRoomCacheMs: 0, rulesCacheMs: 0, jobTypes: Object.keys(bodies) });
  const taskList = createTaskList(
    bodies,
    { runs: postgresJobRuns(h.db), worker, governor, logger: quiet, deferMs: 10 },
    { db: h.db, worker, logger: quiet, probe: new StatfsDiskProbe(), storageDir: '/tmp' },
    media,
  );
  await runOnce({ pgPool: h.pool, taskList, forbiddenFlags: governor.forbiddenFlags, logger: new GraphileLogger(() => () => {}) });
}
