import { tmpdir } from 'node:os';
import { Logger as GraphileLogger, runOnce } from 'graphile-worker';
import { LocalFileStore } from '@inntak/files';
import { type DatabaseHandle } from '@inntak/postgres';
import { newWorkerProcess, PostgresGovernorSource, postgresJobRuns, PostgresLiveRoomStatus, postgresResourceLog } from '@inntak/postgres/jobs';
import { PostgresOrchestrationStore } from '@inntak/postgres/orchestration';
import { DEFAULT_BUDGET } from '@inntak/orchestration';
import { Governor } from '../governor.js';
import { StatfsDiskProbe } from '../statfs-disk-probe.js';
import { createTaskList, jobBodies, type MediaAdapters } from '../task-list.js';
import type { OrchestrateSettings } from '../tasks/orchestrate.js';
import { postgresGraphRepair, postgresHousekeeping, postgresMediaDeps } from '../worker.js';
import { EspeakSpeechSynthesizer } from '../espeak-speech-synthesizer.js';

const quiet = { error() {}, warn() {}, info() {}, debug() {} };

/**
 * Runs every queued job once through the real governed task list, as a worker would; with
 * `runners` > 1, that many graphile-worker runners at once under one governor (a worker's slots).
 */
export async function runGovernedOnce(
  h: DatabaseHandle,
  allow?: Partial<OrchestrateSettings>,
  adapters: MediaAdapters = { files: new LocalFileStore(tmpdir()), synthesizer: new EspeakSpeechSynthesizer() },
  options: { runners?: number } = {},
): Promise<void> {
  const worker = newWorkerProcess();
  const media = postgresMediaDeps(h.db, adapters);
  const bodies = jobBodies(postgresGraphRepair(h.db), media, { httpAllow: [], cliAllow: [], budget: DEFAULT_BUDGET, ...allow, store: new PostgresOrchestrationStore(h.db) });
  const governor = new Governor({ source: new PostgresGovernorSource(h.db, h.pool, quiet), logger: quiet, liveRooms: new PostgresLiveRoomStatus(h.db), liveRoomCacheMs: 0, rulesCacheMs: 0, jobTypes: Object.keys(bodies) });
  const taskList = createTaskList(
    bodies,
    { runs: postgresJobRuns(h.db), worker, governor, logger: quiet, deferMs: 10 },
    { resources: postgresResourceLog(h.db), worker, logger: quiet, probe: new StatfsDiskProbe(), storageDir: '/tmp' },
    media,
    postgresHousekeeping(h.db),
  );
  const once = () => runOnce({ pgPool: h.pool, taskList, forbiddenFlags: governor.forbiddenFlags, logger: new GraphileLogger(() => () => {}) });
  await Promise.all(Array.from({ length: options.runners ?? 1 }, once));
}
